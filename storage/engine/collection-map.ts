import type { Collection } from '../collection.js';
import type { FloatFiles } from '../views/float-file.js';

/**
 * The engine's collections by name. Every collection put in it (created, imported, loaded from a
 * snapshot) is given the engine's place for on-disk floats, so the apply code and the snapshot
 * codec need not know of one.
 */
export class CollectionMap extends Map<string, Collection> {
  constructor(private readonly floatFiles: FloatFiles | null) {
    super();
  }

  override set(name: string, c: Collection): this {
    c.useFloatFiles(this.floatFiles);
    return super.set(name, c);
  }
}
