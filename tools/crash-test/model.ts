import type { PointId } from '../../storage/point-id.js';

/** What the harness knows was acknowledged: the expected content of the collection. */
export interface ModelPoint {
  vector: number[];
  payload: Record<string, unknown>;
}

export class Model {
  readonly points = new Map<PointId, ModelPoint>();
  readonly edges = new Map<string, number>();
  maxOperationId = 0;
  private importIds = 1;

  /** Fresh ids for imported points, never used before (merge skips ids that exist): UUIDs, so both kinds of id face the kills. */
  freshIds(n: number): PointId[] {
    return Array.from({ length: n }, () => `00000000-0000-4000-8000-${(this.importIds++).toString(16).padStart(12, '0')}`);
  }

  /** Writes acknowledged since the last count (workers that died at the kill cannot report theirs). */
  private acked = 0;

  noteAcknowledged(): void {
    this.acked++;
  }

  /** Writes acknowledged since the last count, leaving the count as it is. */
  get acknowledgedUncounted(): number {
    return this.acked;
  }

  acknowledgedSinceCount(): number {
    const n = this.acked;
    this.acked = 0;
    return n;
  }

  static edgeKey(from: PointId, to: PointId, relation: string): string {
    return `${from}>${to}:${relation}`;
  }

  upsert(id: PointId, p: ModelPoint): void {
    this.points.set(id, p);
  }

  delete(id: PointId): void {
    this.points.delete(id);
    for (const key of [...this.edges.keys()]) {
      const [from, rest] = key.split('>');
      const to = rest!.split(':')[0];
      if (from === String(id) || to === String(id)) this.edges.delete(key);
    }
  }
}
