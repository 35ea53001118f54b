import type { Collection } from '../collection.js';
import { badRequest } from '../errors.js';
import type { CollectionConfig, EdgeRecord, ImportMode, PointRecord } from '../events/types.js';
import { IdSlotMap } from '../views/id-slot-map.js';
import { checkEdgeFields, checkPoint, checkPointId, checkRoomForPoints } from './validate-event.js';
import type { WriteLimits } from './write-limits.js';

/**
 * The checks an import's points and edges pass before it is logged, fed a block at a time (a
 * streamed import checks each block as it arrives; a small one runs its arrays through): each
 * point as an upsert checks it, each edge's fields, and that each edge names a point of the file
 * (or, merging, of the target). The file's ids go into a typed-array set, 16 to 32 bytes a point;
 * nothing else of the file is kept.
 */
export class ImportCheck {
  private readonly ids = new IdSlotMap();
  /** Distinct ids of the file that the target does not hold. */
  private fresh = 0;

  constructor(
    private readonly name: string,
    private readonly mode: ImportMode,
    private readonly config: CollectionConfig,
    /** The collection a merge adds to (null for create and replace). */
    private readonly target: Collection | null,
    private readonly limits: WriteLimits,
  ) {}

  points(points: readonly PointRecord[]): void {
    for (const p of points) {
      checkPoint(this.name, this.config, p, this.limits);
      if (this.ids.has(p.id)) continue;
      this.ids.set(p.id, 0);
      if (!this.target?.store.has(p.id)) this.fresh++;
    }
    checkRoomForPoints(this.name, (this.target?.store.liveCount ?? 0) + this.fresh, this.limits);
  }

  edges(edges: readonly EdgeRecord[]): void {
    for (const e of edges) {
      checkEdgeFields(e, this.limits);
      for (const id of [e.from, e.to]) {
        checkPointId(id);
        if (!this.ids.has(id) && !(this.mode === 'merge' && this.target!.store.has(id))) throw badRequest(`an edge names point ${id}, which is not in the file`);
      }
    }
  }
}
