import { expect } from 'chai';

/** The ids of a search's points, in order. */
export const idsOf = (points: { id: string | number }[]) => points.map((p) => p.id);

/** The scores of a search's points, in order. */
export const scoresOf = (points: { score: number }[]) => points.map((p) => p.score);

/** Scores equal to those worked out by hand, to float32 precision. */
export function expectScoresNear(actual: number[], expected: number[]): void {
  expect(actual).to.have.length(expected.length);
  actual.forEach((v, i) => expect(v, `score ${i}`).to.be.closeTo(expected[i]!, 1e-5));
}
