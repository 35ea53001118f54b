import type { Collection } from '../../storage/collection.js';
import type { Filter } from '../filter/types.js';
import { denseView } from './dense-view.js';
import { forEachMatchingSlot } from './matching-slots.js';
import { slotSimilarity } from './universal/similarity.js';

export interface MatrixRequest {
  filter: Filter | null;
  /** How many points to sample. */
  sample: number;
  /** How many neighbours each sampled point keeps. */
  limit: number;
  /** The dense vector compared ("": the unnamed one). */
  using: string;
}

/** One cell of the matrix: a sampled point (row), one of its nearest among the sample (col), by index into `slots`. */
export interface MatrixCell {
  row: number;
  col: number;
  score: number;
}

export interface Matrix {
  /** The sampled points, in id order. */
  slots: number[];
  /** Each row's neighbours best first, rows in order. */
  cells: MatrixCell[];
}

/**
 * Qdrant's distance matrix: a sample of the matching points that have the vector, and for each
 * its `limit` nearest among the others of the sample, scored exactly (engine scores, higher is
 * closer). Qdrant samples at random; here the sample is the first points in id order, so the
 * same request answers the same matrix.
 */
export function searchMatrix(c: Collection, req: MatrixRequest): Matrix {
  const view = denseView(c, req.using);
  const matching: number[] = [];
  forEachMatchingSlot(c, req.filter, (slot) => {
    if (view.has(slot)) matching.push(slot);
  });
  const slots = matching.sort((a, b) => c.store.compareSlots(a, b)).slice(0, req.sample);
  const cells: MatrixCell[] = [];
  slots.forEach((a, row) => {
    const near: MatrixCell[] = [];
    slots.forEach((b, col) => {
      if (col !== row) near.push({ row, col, score: slotSimilarity(view, a, b) });
    });
    cells.push(...near.sort((x, y) => y.score - x.score || x.col - y.col).slice(0, req.limit));
  });
  return { slots, cells };
}
