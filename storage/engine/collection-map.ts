import type { Collection } from '../collection.js';
import type { FloatFiles } from '../views/float-file.js';

/**
 * The engine's collections by name (or a Cypher replica's). Every collection put in it (created,
 * imported, loaded from a snapshot) is given the place for on-disk floats, so the apply code and
 * the snapshot codec need not know of one.
 */
export class CollectionMap extends Map<string, Collection> {
  /** `searched`: false for a copy no search walks (a Cypher replica's), whose collections keep no quantized codes and link nothing (Collection.unsearched). */
  constructor(private readonly floatFiles: FloatFiles | null, private readonly searched = true) {
    super();
  }

  override set(name: string, c: Collection): this {
    this.furnish(c);
    return super.set(name, c);
  }

  /** Gives a collection the place for on-disk floats before it is filled, so that they never take RAM (an import). */
  furnish(c: Collection): void {
    c.useFloatFiles(this.floatFiles);
    if (!this.searched) c.unsearched();
  }
}

/** CollectionMap.furnish, for a map that is one (a plain map, as tools and tests use, has no place for on-disk floats). */
export function furnish(collections: Map<string, Collection>, c: Collection): void {
  if (collections instanceof CollectionMap) collections.furnish(c);
}
