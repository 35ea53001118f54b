import type { Collection } from '../../storage/collection.js';
import { parseOptionalFilter } from '../filter/parse-filter.js';
import type { Matrix, MatrixRequest } from '../search/matrix.js';
import { checkBody } from './check-body.js';
import { bodyObject } from './fields.js';
import { searchMatrixBody } from './schemas/recommend.js';

/** Qdrant's defaults: 10 points sampled, 3 neighbours each. */
const DEFAULT_SAMPLE = 10;
const DEFAULT_NEIGHBOURS = 3;

/** The body of /points/search/matrix/pairs and /offsets. */
export function parseSearchMatrix(raw: unknown): MatrixRequest {
  const b = checkBody(searchMatrixBody, bodyObject(raw));
  return { filter: parseOptionalFilter(b.filter, 'filter'), sample: b.sample ?? DEFAULT_SAMPLE, limit: b.limit ?? DEFAULT_NEIGHBOURS, using: b.using ?? '' };
}

type Shown = (score: number) => number;

/** The matrix as Qdrant's pairs: {pairs: [{a, b, score}]}, each sampled point's neighbours best first. */
export function matrixPairsJson(c: Collection, m: Matrix, shown: Shown): { pairs: { a: unknown; b: unknown; score: number }[] } {
  const ids = m.slots.map((slot) => c.store.idOf(slot));
  return { pairs: m.cells.map((cell) => ({ a: ids[cell.row], b: ids[cell.col], score: shown(cell.score) })) };
}

/** The matrix as Qdrant's sparse offsets: the sampled ids, and for each cell its row, column and score. */
export function matrixOffsetsJson(c: Collection, m: Matrix, shown: Shown): { offsets_row: number[]; offsets_col: number[]; scores: number[]; ids: unknown[] } {
  return {
    offsets_row: m.cells.map((cell) => cell.row),
    offsets_col: m.cells.map((cell) => cell.col),
    scores: m.cells.map((cell) => shown(cell.score)),
    ids: m.slots.map((slot) => c.store.idOf(slot)),
  };
}
