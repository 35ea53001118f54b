import type { PointId } from '../point-id.js';
import { IntSlotMap } from './int-slot-map.js';
import { UuidSlotMap } from './uuid-slot-map.js';

/** Point id → slot for both kinds of id; the UUID table exists once a UUID does. */
export class IdSlotMap {
  private readonly ints = new IntSlotMap();
  private uuids: UuidSlotMap | null = null;

  /** Makes an empty map ready for `ints` integer ids and `uuids` UUIDs at once (a snapshot's). */
  reserve(ints: number, uuids: number): void {
    this.ints.reserve(ints);
    if (uuids > 0) (this.uuids ??= new UuidSlotMap()).reserve(uuids);
  }

  get size(): number {
    return this.ints.size + (this.uuids?.size ?? 0);
  }

  /** The slot of `id`, or -1. */
  get(id: PointId): number {
    if (typeof id === 'number') return this.ints.get(id);
    return this.uuids ? this.uuids.get(id) : -1;
  }

  has(id: PointId): boolean {
    return this.get(id) >= 0;
  }

  set(id: PointId, slot: number): void {
    if (typeof id === 'number') this.ints.set(id, slot);
    else (this.uuids ??= new UuidSlotMap()).set(id, slot);
  }

  delete(id: PointId): boolean {
    if (typeof id === 'number') return this.ints.delete(id);
    return this.uuids ? this.uuids.delete(id) : false;
  }
}
