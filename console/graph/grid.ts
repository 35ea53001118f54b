import type { Box, Position } from './viewport.js';

// A little over twice the width of cytoscape's default node (30).
const SPACING = 66;

/** `count` nodes on a grid about `aspect` times as wide as it is tall: where the i-th goes, and the box of their centres. */
export function grid(count: number, aspect: number): { at: (i: number) => Position; box: Box } {
  const columns = Math.max(1, Math.ceil(Math.sqrt(count * aspect)));
  const rows = Math.max(1, Math.ceil(count / columns));
  return {
    at: (i) => ({ x: (i % columns) * SPACING, y: Math.floor(i / columns) * SPACING }),
    box: { x1: 0, y1: 0, x2: (Math.min(count, columns) - 1) * SPACING, y2: (rows - 1) * SPACING },
  };
}
