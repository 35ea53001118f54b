/**
 * The slots whose payload changed, in order, kept only while something reads them: a view
 * derived from payloads (a filter's matches, query/filter/filter-bitsets.ts) catches up by
 * reading those slots again instead of every slot. A position is a count of changes since the
 * journal began; `epoch` moves when every slot may have changed at once (a state loaded, the
 * journal turned on), and a reader then starts over.
 */
export class SlotJournal {
  private slots = new Int32Array(256);
  private length = 0;
  /** The position of slots[0]. */
  private base = 0;
  private watched = false;
  epoch = 0;
  /** The most changes kept: past it readers would start over anyway, so the journal does (its memory stays bounded). */
  limit = Infinity;

  /** Whether changes are kept; turned on, every reader starts over. */
  get watching(): boolean {
    return this.watched;
  }

  set watching(on: boolean) {
    if (on && !this.watched) this.restart();
    this.watched = on;
    if (!on) this.forget(this.end);
  }

  /** The position after the newest change. */
  get end(): number {
    return this.base + this.length;
  }

  note(slot: number): void {
    if (!this.watched) return;
    if (this.length >= this.limit) this.restart();
    if (this.length === this.slots.length) {
      const grown = new Int32Array(this.slots.length * 2);
      grown.set(this.slots);
      this.slots = grown;
    }
    this.slots[this.length++] = slot;
  }

  /** Every slot may have changed: readers start over. */
  restart(): void {
    this.epoch++;
    this.forget(this.end);
  }

  /** Changes from position `from` on, or null when they are no longer kept (start over). */
  since(from: number): Int32Array | null {
    if (from < this.base || from > this.end) return null;
    return this.slots.subarray(from - this.base, this.length);
  }

  /** Lets go of the changes before position `upTo` (every reader has read them). */
  forget(upTo: number): void {
    const drop = Math.min(Math.max(0, upTo - this.base), this.length);
    if (drop === 0) return;
    this.slots.copyWithin(0, drop, this.length);
    this.length -= drop;
    this.base += drop;
  }
}
