/** Full-text tokens as a `text` match reads them: lowercase runs of letters and digits (any script). */
export function textTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Milliseconds of an RFC 3339 date-time (a date alone is its midnight UTC; no offset: UTC), or null. */
export function instantOf(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(value)) return null;
  const iso = value.replace(' ', 'T');
  const withZone = /T.*(Z|[+-]\d{2}:?\d{2})$/i.test(iso) || !iso.includes('T') ? iso : `${iso}Z`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? null : ms;
}
