import { isTemporal } from './temporal/types.js';
import type { GraphTx } from './graph-tx.js';
import { WholeFloat } from './numbers.js';
import { CypherPoint } from './spatial/point.js';
import { isMap, NodeRef, PathValue, RelRef, VirtualNode, VirtualRel, type Value } from './values.js';

/**
 * Estimated bytes of the values a query builds, charged against its memory budget. The figures
 * follow V8's layout closely enough to bound the heap: a pointer-sized slot per list element,
 * two bytes per string character, a header per object.
 */
export const SLOT_BYTES = 8;
export const CHAR_BYTES = 2;
const HEADER_BYTES = 16;
/** A row object: its header and hidden class share, before its entries. */
export const ROW_BYTES = 64;
/** One named entry of a row or map: the key slot and the value slot. */
const ENTRY_BYTES = 16;
/** A node or relationship created or changed by a write, beside its properties. */
export const ENTITY_BYTES = 128;

export const listBytes = (length: number): number => HEADER_BYTES + SLOT_BYTES * length;
export const stringBytes = (length: number): number => HEADER_BYTES + CHAR_BYTES * length;

/**
 * A value's size. With `tx`, a node or relationship also counts the properties it carries (the
 * JSON a result shows); without, it is a reference. Scalars sit in their slot.
 */
export function sizeOf(v: Value, tx?: GraphTx): number {
  if (v === null || typeof v !== 'object') return typeof v === 'string' ? stringBytes(v.length) : 0;
  if (Array.isArray(v)) {
    let total = listBytes(v.length);
    for (const x of v) if (x !== null && (typeof x === 'object' || typeof x === 'string')) total += sizeOf(x, tx);
    return total;
  }
  if (v instanceof NodeRef) return HEADER_BYTES + (tx ? ENTITY_BYTES + sizeOf((tx.payloadOf(v.id) ?? tx.deletedNode(v.id)?.payload ?? null) as Value, tx) : 0);
  if (v instanceof RelRef) return HEADER_BYTES + (tx ? ENTITY_BYTES + sizeOf(((tx.edge(v.id) ?? tx.deletedEdge(v.id))?.properties ?? null) as Value, tx) : 0);
  if (v instanceof VirtualNode || v instanceof VirtualRel) return HEADER_BYTES + ENTITY_BYTES + sizeOf(v.properties);
  if (v instanceof PathValue) {
    if (!tx) return HEADER_BYTES + listBytes(v.nodes.length) + listBytes(v.rels.length);
    let total = HEADER_BYTES;
    for (const id of v.nodes) total += sizeOf(new NodeRef(id), tx);
    for (const id of v.rels) total += sizeOf(new RelRef(id), tx);
    return total;
  }
  if (isTemporal(v) || v instanceof CypherPoint) return HEADER_BYTES * 2;
  if (v instanceof Uint8Array) return HEADER_BYTES * 4 + v.byteLength;
  if (v instanceof WholeFloat) return HEADER_BYTES;
  return isMap(v) ? entriesBytes(v, tx) : 0;
}

function entriesBytes(m: Record<string, Value>, tx?: GraphTx): number {
  let total = HEADER_BYTES;
  for (const key in m) {
    if (!Object.hasOwn(m, key)) continue;
    total += ENTRY_BYTES + CHAR_BYTES * key.length + sizeOf(m[key]!, tx);
  }
  return total;
}

/** A row held by an operator (a sort buffer, a group, the result set). */
export const rowBytes = (row: Record<string, Value>, tx?: GraphTx): number => ROW_BYTES + entriesBytes(row, tx);
