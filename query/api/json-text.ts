import { JsonFloat } from '../cypher/present.js';

/** JSON written elsewhere (a Cypher replica's rows, workers/cypher-replicas.ts), put into the text as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * JSON.stringify, except that a JsonFloat is written as its text (1.0 stays 1.0) and a bigint as
 * its digits. Objects are
 * plain data here (no toJSON, no cycles); undefined entries are left out as JSON.stringify does.
 */
export function jsonText(v: unknown): string {
  const out: string[] = [];
  write(v, out);
  return out.join('');
}

function write(v: unknown, out: string[]): void {
  if (v instanceof JsonFloat || v instanceof JsonText) {
    out.push(v.text);
    return;
  }
  if (typeof v === 'bigint') {
    // An INTEGER beyond 2^53, written exactly (a JSON number has no size limit).
    out.push(String(v));
    return;
  }
  if (v === null || typeof v !== 'object') {
    out.push(JSON.stringify(v) ?? 'null');
    return;
  }
  if (Array.isArray(v)) {
    out.push('[');
    v.forEach((x, i) => {
      if (i > 0) out.push(',');
      write(x === undefined ? null : x, out);
    });
    out.push(']');
    return;
  }
  out.push('{');
  let first = true;
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    write(x, out);
  }
  out.push('}');
}
