import type { Collection } from '../../storage/collection.js';
import { valuesAtPath, type JsonPath } from '../../storage/json-path.js';
import { queryHits, type QueryHit } from '../search/universal/run.js';
import type { OutputOptions } from './output-options.js';
import { pointJson } from './point-json.js';
import type { GroupsQuery, UniversalQuery } from './universal-body.js';

/** How a dialect shows a score (Qdrant's port: a Euclidean or Manhattan distance as itself; see qdrant-scores.ts). */
export type ScoreShown = (score: number) => number;

const asIs: ScoreShown = (score) => score;

function hitJson(c: Collection, h: QueryHit, options: OutputOptions, shown: ScoreShown): Record<string, unknown> {
  const out = pointJson(c, h.slot, options, shown(h.score));
  if (h.orderValue !== undefined) out.order_value = h.orderValue;
  return out;
}

/** A universal query's points, best first. */
export async function queryJson(c: Collection, q: UniversalQuery, shown = asIs): Promise<Record<string, unknown>[]> {
  return (await queryHits(c, q.plan)).map((h) => hitJson(c, h, q, shown));
}

/** Scroll with order_by: the points (no score) with the value they were ordered by. */
export async function orderedJson(c: Collection, q: UniversalQuery): Promise<Record<string, unknown>[]> {
  return (await queryHits(c, q.plan)).map((h) => ({ ...pointJson(c, h.slot, q), order_value: h.orderValue }));
}

const isGroupValue = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/**
 * The groups a point falls in, as Qdrant's grouping reads them: each value at the group_by path,
 * each element of an array there; none when one of them is not a string or an integer.
 */
function groupValues(payload: Record<string, unknown>, path: JsonPath): (string | number)[] {
  const values = valuesAtPath(payload, path).flatMap((v) => (Array.isArray(v) ? v : [v]));
  return values.every(isGroupValue) ? [...new Set(values)] : [];
}

/** Hits grouped by a payload key: groups in the order of their best hit, each with its best group_size hits. */
export async function groupsJson(c: Collection, q: GroupsQuery, shown = asIs): Promise<{ groups: { id: string | number; hits: Record<string, unknown>[] }[] }> {
  const groups = new Map<string | number, QueryHit[]>();
  for (const hit of await queryHits(c, q.plan)) {
    for (const key of groupValues(c.store.payloads[hit.slot] ?? {}, q.groupBy)) {
      let members = groups.get(key);
      if (!members) {
        if (groups.size === q.groups) continue;
        groups.set(key, (members = []));
      }
      if (members.length < q.groupSize) members.push(hit);
    }
  }
  return { groups: [...groups].map(([id, hits]) => ({ id, hits: hits.map((h) => hitJson(c, h, q, shown)) })) };
}
