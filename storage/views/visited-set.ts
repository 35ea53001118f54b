/**
 * A visited list reused between searches (as hnswlib's VisitedList): a slot is visited when
 * its tag equals the current generation, so a reset is one increment, not a clear.
 */
export class VisitedSet {
  private tags: Uint32Array;
  private generation = 0;

  constructor(capacity: number) {
    this.tags = new Uint32Array(Math.max(capacity, 16));
  }

  reset(capacity: number): void {
    if (capacity > this.tags.length) {
      this.tags = new Uint32Array(Math.max(capacity, this.tags.length * 2));
      this.generation = 0;
    }
    this.generation++;
    if (this.generation === 0xffffffff) {
      this.tags.fill(0);
      this.generation = 1;
    }
  }

  /** Marks the slot; answers whether it was already marked. */
  visit(slot: number): boolean {
    if (this.tags[slot] === this.generation) return true;
    this.tags[slot] = this.generation;
    return false;
  }
}
