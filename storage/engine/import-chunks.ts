import { ByteReader } from '../codec/byte-reader.js';
import { CorruptDataError } from '../errors.js';
import { readEdge, readPoint } from '../events/codec.js';
import type { EdgeRecord, ImportCollectionEvent, PointRecord } from '../events/types.js';
import { BLOCK, BLOCK_HEADER } from '../export/format.js';

/** Points (or edges) an import hands on at a time: a few milliseconds of work to apply. */
export const IMPORT_SLICE_ITEMS = 1_000;

/** How many points an import holds (its own, or its staged blocks'). */
export const importPointCount = (event: ImportCollectionEvent): number => event.staged?.points ?? event.points.length;

function* slices<T>(items: readonly T[]): Generator<readonly T[]> {
  for (let from = 0; from < items.length; from += IMPORT_SLICE_ITEMS) yield items.slice(from, from + IMPORT_SLICE_ITEMS);
}

/**
 * An import's points, or its edges, in file order, at most IMPORT_SLICE_ITEMS at a time: from the
 * event itself, or read a block at a time from where the log staged them (StagedContent), so a
 * streamed import is never held whole.
 */
export function importItems(event: ImportCollectionEvent, kind: 'points'): Generator<readonly PointRecord[]>;
export function importItems(event: ImportCollectionEvent, kind: 'edges'): Generator<readonly EdgeRecord[]>;
export function* importItems(event: ImportCollectionEvent, kind: 'points' | 'edges'): Generator<readonly (PointRecord | EdgeRecord)[]> {
  const staged = event.staged;
  if (!staged) {
    yield* slices<PointRecord | EdgeRecord>(kind === 'points' ? event.points : event.edges);
    return;
  }
  if (!staged.read) throw new Error(`the blocks of staged import ${staged.stage} are not at hand: read the entry from the log that holds them`);
  const type = kind === 'points' ? BLOCK.points : BLOCK.edges;
  for (const framed of staged.read()) {
    if (framed[0] !== BLOCK.points && framed[0] !== BLOCK.edges) throw new CorruptDataError(`staged import ${staged.stage} holds a block of type ${framed[0]}`);
    if (framed[0] !== type) continue;
    const r = new ByteReader(framed, BLOCK_HEADER);
    const items: (PointRecord | EdgeRecord)[] = [];
    for (let n = r.u32(), i = 0; i < n; i++) items.push(kind === 'points' ? readPoint(r, staged.version) : readEdge(r, staged.version));
    r.expectEnd();
    yield* slices(items);
  }
}
