import type { PointId } from '../point-id.js';
import { LIVE_SHARD_LIMIT, ShardedSet } from './sharded.js';

const NONE: ReadonlySet<PointId> = new Set();

/** Label → the ids of the points that carry it (sharded: a label may be on more than 2^24 points). */
export class LabelIndex {
  private readonly byLabel = new Map<string, ShardedSet<PointId>>();

  add(id: PointId, labels: readonly string[]): void {
    for (const label of labels) {
      let ids = this.byLabel.get(label);
      if (!ids) this.byLabel.set(label, (ids = new ShardedSet(LIVE_SHARD_LIMIT)));
      ids.add(id);
    }
  }

  remove(id: PointId, labels: readonly string[]): void {
    for (const label of labels) {
      const ids = this.byLabel.get(label);
      if (!ids) continue;
      ids.delete(id);
      if (ids.size === 0) this.byLabel.delete(label);
    }
  }

  pointsWith(label: string): ReadonlySet<PointId> {
    return this.byLabel.get(label) ?? NONE;
  }
}
