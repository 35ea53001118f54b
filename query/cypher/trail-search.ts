import type { PointId } from '../../storage/point-id.js';
import type { QueryGuard } from './guard.js';
import { listBytes } from './sizes.js';

/** One move of a trail: a relationship, or a repetition of a quantified path pattern, and the node it ends on. */
export interface Move {
  to: PointId;
  edges: number[];
}

/** A trail being grown, as the move that ended it and the trail before it. */
interface Partial<M extends Move> {
  at: PointId;
  move: M | null;
  before: Partial<M> | null;
  length: number;
}

export interface TrailSearch<M extends Move> {
  from: PointId;
  to: PointId;
  /** The bounds on the number of moves. */
  min: number;
  max: number;
  /** The fewest moves from each node to `to`, relationships allowed to repeat; a node left out cannot reach it. */
  distance: ReadonlyMap<PointId, number>;
  /** The fewest moves from `at` to `to` crossing none of `used`, if no more than `within` (else Infinity). */
  residual: (at: PointId, used: number[], within: number) => number;
  /** Calls `visit` with each move from `at` that crosses none of `used`. */
  expand: (at: PointId, used: number[], visit: (move: M) => void) => void;
  /** A trail from `from` to `to` within the bounds, as its moves in the order walked. */
  emit: (moves: M[]) => void;
  /** Whether no trail of `length` moves or more is wanted any more: the search stops then. */
  satisfied: (length: number) => boolean;
  guard: QueryGuard;
}

/**
 * The trails (no relationship crossed twice) from `from` to `to`, shortest first: a best-first
 * search over partial trails, ranked by their length plus the fewest moves still needed, which
 * never overestimates: first as `distance` has it, then, when the trail is taken up, without the
 * relationships it crossed (`residual`; the rank only grows, and a trail whose rank grew waits
 * for it). A partial trail that cannot reach `to` within `max` is never grown, and the search
 * ends once `satisfied` says so, so only the trails no longer than the last length wanted are
 * walked, not every trail; and as the shortest way on from a partial trail over relationships
 * it did not cross is a trail too, each one grown is the start of a trail of its rank.
 * Equal ranks are taken last in, first out: a trail is followed to its end before its siblings.
 */
export function trailsByLength<M extends Move>(search: TrailSearch<M>): void {
  const { from, to, min, max, distance, residual, expand, emit, satisfied, guard } = search;
  const buckets: Partial<M>[][] = [];
  const partialBytes = listBytes(4);
  let held = 0;
  // A trail's rank is never below its parent's: every way on from it is a way on from the parent.
  const push = (p: Partial<M>, floor: number) => {
    const rest = Math.max(distance.get(p.at) ?? Infinity, min - p.length);
    const rank = Math.max(p.length + rest, floor);
    if (rank > max) return;
    guard.charge(partialBytes, 'the partial trails a path selector grows');
    held += partialBytes;
    (buckets[rank] ??= []).push(p);
  };
  try {
    push({ at: from, move: null, before: null, length: 0 }, 0);
    for (let rank = 0; rank < buckets.length; rank++) {
      const bucket = buckets[rank];
      while (bucket && bucket.length > 0) {
        if (satisfied(rank)) return;
        const p = bucket.pop()!;
        const moves = movesOf(p);
        const used = moves.flatMap((m) => m.edges);
        if (p.length > 0) {
          const truer = p.length + Math.max(residual(p.at, used, max - p.length), min - p.length);
          if (truer > max) continue;
          if (truer > rank) {
            (buckets[truer] ??= []).push(p);
            continue;
          }
        }
        if (p.at === to && p.length >= min) emit(moves);
        if (p.length >= max) continue;
        expand(p.at, used, (move) => push({ at: move.to, move, before: p, length: p.length + 1 }, rank));
      }
    }
  } finally {
    guard.release(held);
  }
}

function movesOf<M extends Move>(p: Partial<M>): M[] {
  const moves: M[] = [];
  for (let q: Partial<M> | null = p; q?.move; q = q.before) moves.push(q.move);
  return moves.reverse();
}
