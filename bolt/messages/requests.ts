import { PackFloat, Structure, type PackValue } from '../packstream/structure.js';

export type Extra = { [key: string]: PackValue };

/** The messages a client sends, decoded from their structures. */
export type Request =
  | { kind: 'HELLO'; extra: Extra }
  | { kind: 'LOGON'; auth: Extra }
  | { kind: 'LOGOFF' }
  | { kind: 'GOODBYE' }
  | { kind: 'RESET' }
  | { kind: 'RUN'; query: string; parameters: Extra; extra: Extra }
  | { kind: 'BEGIN'; extra: Extra }
  | { kind: 'COMMIT' }
  | { kind: 'ROLLBACK' }
  | { kind: 'PULL'; n: number; qid: number }
  | { kind: 'DISCARD'; n: number; qid: number }
  | { kind: 'ROUTE'; routing: Extra; bookmarks: PackValue[]; db: string | null }
  | { kind: 'TELEMETRY'; api: number };

/** A message the protocol does not allow: answered with FAILURE Neo.ClientError.Request.Invalid. */
export class ProtocolError extends Error {}

const isMap = (v: PackValue | undefined): v is Extra =>
  v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Structure) && !(v instanceof Uint8Array) && !(v instanceof PackFloat);

function map(v: PackValue | undefined, what: string): Extra {
  if (v === null || v === undefined) return {};
  if (!isMap(v)) throw new ProtocolError(`${what} must be a map`);
  return v;
}

/** PULL/DISCARD's n and qid: -1 means all (n) and the last query (qid). */
function count(extra: Extra, key: string): number {
  const v = extra[key];
  if (v === undefined || v === null) return -1;
  if (typeof v !== 'number' && typeof v !== 'bigint') throw new ProtocolError(`${key} must be an integer`);
  return typeof v === 'bigint' ? Number.MAX_SAFE_INTEGER : v;
}

function fieldCount(s: Structure, name: string, ...allowed: number[]): void {
  if (!allowed.includes(s.fields.length)) throw new ProtocolError(`${name} takes ${allowed.join(' or ')} fields, got ${s.fields.length}`);
}

/** The request a structure holds; throws a ProtocolError for an unknown signature or malformed fields. */
export function decodeRequest(s: Structure): Request {
  const f = s.fields;
  switch (s.signature) {
    case 0x01:
      fieldCount(s, 'HELLO', 1);
      return { kind: 'HELLO', extra: map(f[0], 'HELLO extra') };
    case 0x6a:
      fieldCount(s, 'LOGON', 1);
      return { kind: 'LOGON', auth: map(f[0], 'LOGON auth') };
    case 0x6b:
      return { kind: 'LOGOFF' };
    case 0x02:
      return { kind: 'GOODBYE' };
    case 0x0f:
      return { kind: 'RESET' };
    case 0x10: {
      fieldCount(s, 'RUN', 2, 3);
      if (typeof f[0] !== 'string') throw new ProtocolError('RUN query must be a string');
      return { kind: 'RUN', query: f[0], parameters: map(f[1], 'RUN parameters'), extra: map(f[2], 'RUN extra') };
    }
    case 0x11:
      return { kind: 'BEGIN', extra: map(f[0], 'BEGIN extra') };
    case 0x12:
      return { kind: 'COMMIT' };
    case 0x13:
      return { kind: 'ROLLBACK' };
    case 0x3f:
    case 0x2f: {
      const extra = map(f[0], 'PULL/DISCARD extra');
      return { kind: s.signature === 0x3f ? 'PULL' : 'DISCARD', n: count(extra, 'n'), qid: count(extra, 'qid') };
    }
    case 0x66: {
      fieldCount(s, 'ROUTE', 3);
      // Bolt 4.3 sends the database name itself; 4.4 and later a map {db, imp_user}.
      const third = f[2];
      const db = typeof third === 'string' ? third : isMap(third) && typeof third.db === 'string' ? third.db : null;
      return { kind: 'ROUTE', routing: map(f[0], 'ROUTE routing'), bookmarks: Array.isArray(f[1]) ? f[1] : [], db };
    }
    case 0x54: {
      const api = f[0];
      return { kind: 'TELEMETRY', api: typeof api === 'number' ? api : -1 };
    }
  }
  throw new ProtocolError(`unknown message signature 0x${s.signature.toString(16)}`);
}
