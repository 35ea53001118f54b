/** What the harness knows was acknowledged: the expected content of the collection. */
export interface ModelPoint {
  vector: number[];
  payload: Record<string, unknown>;
}

export class Model {
  readonly points = new Map<number, ModelPoint>();
  readonly edges = new Map<string, number>();
  maxOperationId = 0;
  private importIds = 1_000_000;

  /** Fresh ids for imported points, never used before (merge skips ids that exist). */
  freshIds(n: number): number[] {
    return Array.from({ length: n }, () => this.importIds++);
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

  static edgeKey(from: number, to: number, relation: string): string {
    return `${from}>${to}:${relation}`;
  }

  upsert(id: number, p: ModelPoint): void {
    this.points.set(id, p);
  }

  delete(id: number): void {
    this.points.delete(id);
    for (const key of [...this.edges.keys()]) {
      const [from, rest] = key.split('>');
      const to = rest!.split(':')[0];
      if (Number(from) === id || Number(to) === id) this.edges.delete(key);
    }
  }
}
