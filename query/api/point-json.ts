import type { PointId } from '../../storage/point-id.js';
import type { Collection } from '../../storage/collection.js';
import type { Payload } from '../../storage/events/types.js';
import { searchCollection, type VectorQuery } from '../search/vector-search.js';
import type { OutputOptions, PayloadSelector } from './output-options.js';

/** Own keys only, built with fromEntries so that a key like `__proto__` stays an ordinary key. */
function selectPayload(payload: Payload, selector: PayloadSelector): Payload {
  if (selector === true || selector === false) return payload;
  if ('include' in selector) return Object.fromEntries(selector.include.filter((key) => Object.hasOwn(payload, key)).map((key) => [key, payload[key]]));
  return Object.fromEntries(Object.entries(payload).filter(([key]) => !selector.exclude.includes(key)));
}

/** A retrieved or scored point as JSON: id, [score], then payload and labels, vector, as asked. */
export function pointJson(c: Collection, slot: number, options: OutputOptions, score?: number): Record<string, unknown> {
  const { store } = c;
  const out: Record<string, unknown> = { id: store.idOf(slot) };
  if (score !== undefined) out.score = score;
  if (options.withPayload !== false) {
    out.payload = selectPayload(store.payloads[slot] ?? {}, options.withPayload);
    out.labels = store.labels[slot];
  }
  if (options.withVector) out.vector = store.hasVector[slot] ? Array.from(store.vectorOf(slot)) : null;
  return out;
}

/** Retrieve: the points that exist, in the order asked. */
export function retrievedJson(c: Collection, ids: readonly PointId[], options: OutputOptions): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  for (const id of ids) {
    const slot = c.store.slotOf(id);
    if (slot >= 0) found.push(pointJson(c, slot, options));
  }
  return found;
}

/** A search's scored points, best first. */
export function scoredJson(c: Collection, req: VectorQuery & OutputOptions): Record<string, unknown>[] {
  return searchCollection(c, req).map((hit) => pointJson(c, hit.slot, req, hit.score));
}
