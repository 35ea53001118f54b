import type { CollectionSettings, Payload, PointId } from '../events/types.js';
import { FullTextIndex } from './fulltext-index.js';

/** The settings group Cypher keeps its index definitions in (query/cypher/schema.ts writes it: name → definition, null once dropped). */
const CYPHER_INDEXES = 'cypher_indexes';

const keyOf = (labels: readonly string[], properties: readonly string[]) => JSON.stringify([labels, properties]);

/** The labels and properties of each full-text index the settings declare, as view keys. */
function declaredKeys(settings: CollectionSettings): Set<string> {
  const keys = new Set<string>();
  for (const def of Object.values(settings[CYPHER_INDEXES] ?? {})) {
    if (def === null || typeof def !== 'object') continue;
    const { type, label, labels, properties } = def as { type?: unknown; label?: unknown; labels?: unknown; properties?: unknown };
    if (type === 'FULLTEXT' && Array.isArray(properties)) keys.add(keyOf(Array.isArray(labels) ? labels : [label], properties));
  }
  return keys;
}

/**
 * A collection's full-text indexes kept as views (FullTextIndex), by labels and properties.
 * Each is built on first use from the stored nodes, then follows every node write the apply
 * code makes (Collection calls put and remove), and is dropped once the settings no longer
 * declare it. Built on first use rather than at start-up: a replay or a snapshot load costs
 * nothing for the indexes no query reads, each Cypher replica builds only those queried on it,
 * and the build reads the nodes the same apply code stored, so it holds what a rebuild at
 * start-up would.
 */
export class FullTextViews {
  private readonly views = new Map<string, FullTextIndex>();

  /** The view of an index, built by `fill` (which puts every node of its labels) when there is none yet. */
  get(labels: readonly string[], properties: readonly string[], fill: (index: FullTextIndex) => void): FullTextIndex {
    const key = keyOf(labels, properties);
    let index = this.views.get(key);
    if (!index) {
      index = new FullTextIndex(labels, properties);
      fill(index);
      this.views.set(key, index);
    }
    return index;
  }

  put(id: PointId, labels: readonly string[], payload: Payload): void {
    for (const index of this.views.values()) index.put(id, labels, payload);
  }

  remove(id: PointId): void {
    for (const index of this.views.values()) index.remove(id);
  }

  /** New settings: the views of indexes they no longer declare are let go of. */
  keepDeclared(settings: CollectionSettings): void {
    if (this.views.size === 0) return;
    const declared = declaredKeys(settings);
    for (const key of [...this.views.keys()]) if (!declared.has(key)) this.views.delete(key);
  }
}
