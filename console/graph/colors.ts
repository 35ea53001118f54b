const cache = new Map<string, string>();

/** A stable colour for a label or relation name: the same name gets the same hue on every page. */
export function colorOf(name: string | undefined): string {
  if (name === undefined) return '#9aa0a6';
  let color = cache.get(name);
  if (color === undefined) {
    // FNV-1a, then the golden angle for the hue and other bits for the lightness: names that differ
    // by one letter still get far-apart colours.
    let hash = 0x811c9dc5;
    for (const ch of name) hash = Math.imul(hash ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
    color = `hsl(${Math.round((hash * 137.508) % 360)}, 62%, ${36 + ((hash >>> 16) % 4) * 7}%)`;
    cache.set(name, color);
  }
  return color;
}
