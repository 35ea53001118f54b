import type { SortItem } from './ast.js';
import type { QueryGuard } from './guard.js';
import { orderCompare, type Value } from './values.js';

interface Held<T> {
  item: T;
  keys: Value[];
  /** Arrival order: equal keys keep it, as a stable sort would. */
  seq: number;
  bytes: number;
}

/**
 * ORDER BY's buffer. Without a limit it holds every row; with one (SKIP + LIMIT rows) it is a
 * bounded max-heap whose root is the worst row kept, so it holds k rows whatever the input size.
 * Each row is charged to the memory budget while held.
 */
export class Ordering<T> {
  private readonly heap: Held<T>[] = [];
  private seq = 0;

  constructor(private readonly sort: SortItem[], private readonly capacity: number | null, private readonly guard: QueryGuard) {}

  /** Offers a row with its sort keys; its size (measured only if it is kept) is charged while it is held. */
  add(item: T, keys: Value[], size: () => number): void {
    const held: Held<T> = { item, keys, seq: this.seq++, bytes: 0 };
    if (this.capacity === 0) return;
    const full = this.capacity !== null && this.heap.length >= this.capacity;
    if (full && this.compare(held, this.heap[0]!) >= 0) return;
    held.bytes = size();
    if (full) this.guard.release(this.heap[0]!.bytes);
    this.guard.charge(held.bytes, 'the rows ORDER BY holds');
    if (this.capacity === null) {
      this.heap.push(held);
    } else if (full) {
      this.heap[0] = held;
      this.siftDown(0);
    } else {
      this.heap.push(held);
      this.siftUp(this.heap.length - 1);
    }
  }

  /** The rows kept, in order, and the bytes charged for them (the caller releases them once it has sent them on). */
  drain(): { items: T[]; bytes: number } {
    const sorted = this.heap.sort((a, b) => this.compare(a, b));
    let bytes = 0;
    const items = sorted.map((h) => {
      bytes += h.bytes;
      return h.item;
    });
    this.heap.length = 0;
    return { items, bytes };
  }

  private compare(a: Held<T>, b: Held<T>): number {
    for (let i = 0; i < this.sort.length; i++) {
      const c = orderCompare(a.keys[i]!, b.keys[i]!);
      if (c !== 0) return this.sort[i]!.descending ? -c : c;
    }
    return a.seq - b.seq;
  }

  private siftUp(i: number): void {
    const { heap } = this;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(heap[i]!, heap[parent]!) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const { heap } = this;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < heap.length && this.compare(heap[l]!, heap[top]!) > 0) top = l;
      if (r < heap.length && this.compare(heap[r]!, heap[top]!) > 0) top = r;
      if (top === i) return;
      [heap[i], heap[top]] = [heap[top]!, heap[i]!];
      i = top;
    }
  }
}
