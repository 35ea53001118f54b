/**
 * Extendible hashing (Fagin, Nievergelt, Pippenger and Strong, 1979) over buckets of any kind:
 * a directory of 2^depth references to buckets, chosen by the top `depth` bits of an entry's
 * 32-bit hash (the buckets place their entries by its low bits). Each bucket has a depth of its
 * own: the bits its entries share, so it fills a run of 2^(depth - its depth) directory places. A bucket that fills is divided in two by its next bit, moving only its own
 * entries, and the directory doubles (references only) when that bucket was as deep as it. So a
 * table grows to any size without a pause longer than one bucket's worth: rehashed whole, the
 * ids of a million points held every request for 60-100 ms (250-600 ms as UUIDs), and each
 * doubling after twice as long.
 */
export interface Bucket {
  readonly size: number;
  depth: number;
}

/** Past this the directory stops doubling (65,536 places) and full buckets just grow. */
const MOST_DEPTH = 16;

/** A bucket of a typed-array hash table: made for a capacity, and able to put its entries into other buckets by their hash. */
export interface TableBucket<B> extends Bucket {
  readonly capacity: number;
  spread(place: (hash: number) => B): void;
}

export class Directory<B extends Bucket> {
  /** The directory: place i holds the bucket of the hashes whose top `depth` bits are i. */
  buckets: B[];
  depth = 0;

  /** `divide` makes two buckets of one: the entries whose hash has `bit` clear, then those with it set (`1 << bit`, negative for bit 31). */
  constructor(
    first: B,
    private readonly limit: number,
    private readonly divide: (bucket: B, bit: number) => [B, B],
  ) {
    this.buckets = [first];
  }

  /** The bucket of `hash`: its top `depth` bits (none at depth 0, where a shift by 32 would be by 0). */
  of(hash: number): B {
    return this.buckets[(hash >>> 1) >>> (31 - this.depth)]!;
  }

  /** The bucket a new entry of `hash` goes to, divided first while full. */
  forNew(hash: number): B {
    let bucket = this.of(hash);
    while (bucket.size >= this.limit && bucket.depth < MOST_DEPTH) {
      this.split(hash, bucket);
      bucket = this.of(hash);
    }
    return bucket;
  }

  /**
   * Makes an empty table ready for `count` entries at once (a snapshot's ids): as many buckets
   * as give each half the limit, each from `make` with room for its share and the spread of a
   * hash, so that filling it divides and grows nothing.
   */
  reserve(count: number, make: (capacity: number) => B): void {
    if (count <= this.limit / 2) return;
    this.depth = Math.min(MOST_DEPTH, Math.ceil(Math.log2(count / (this.limit / 2))));
    const each = count / 2 ** this.depth;
    let capacity = 16;
    while (capacity * 3 < (each + 4 * Math.sqrt(each) + 16) * 4) capacity *= 2;
    this.buckets = Array.from({ length: 2 ** this.depth }, () => {
      const bucket = make(capacity);
      bucket.depth = this.depth;
      return bucket;
    });
  }

  /** Each bucket once (a bucket's places are one run of the directory). */
  *distinct(): IterableIterator<B> {
    let last: B | undefined;
    for (const bucket of this.buckets) {
      if (bucket === last) continue;
      last = bucket;
      yield bucket;
    }
  }

  private split(hash: number, bucket: B): void {
    if (bucket.depth === this.depth) {
      const old = this.buckets;
      this.buckets = Array.from({ length: old.length * 2 }, (_, i) => old[i >> 1]!);
      this.depth++;
    }
    const [low, high] = this.divide(bucket, 31 - bucket.depth);
    low.depth = high.depth = bucket.depth + 1;
    const shift = this.depth - bucket.depth;
    const start = (((hash >>> 1) >>> (31 - this.depth)) >>> shift) << shift;
    const half = 1 << (shift - 1);
    for (let i = 0; i < 2 * half; i++) this.buckets[start + i] = i < half ? low : high;
  }
}

/** A directory of typed-array table buckets made by `make`, the first with room for `least`: a full one is divided into two of half its capacity. */
export function tableDirectory<B extends TableBucket<B>>(make: (capacity: number) => B, least: number, limit: number): Directory<B> {
  return new Directory(make(least), limit, (bucket, bit) => {
    const low = make(Math.max(least, bucket.capacity / 2));
    const high = make(Math.max(least, bucket.capacity / 2));
    bucket.spread((h) => (h & (1 << bit) ? high : low));
    return [low, high];
  });
}
