import type { Collection } from '../../storage/collection.js';
import type { Distance } from '../../storage/events/types.js';
import { CypherError } from './errors.js';

/**
 * Neo4j's schema (indexes and constraints) as a collection keeps it: definitions by name in
 * the collection's settings groups `cypher_indexes` and `cypher_constraints`, written by a
 * `collection_settings` log entry (a null definition drops one). They describe rather than
 * drive storage: the vector index of a label searches the collection's own HNSW index, a range
 * or text index is served by the label index; constraints are enforced on Cypher writes
 * (constraints.ts) through the payload and label indexes.
 */
export interface IndexDef {
  id: number;
  name: string;
  type: 'RANGE' | 'TEXT' | 'POINT' | 'VECTOR' | 'FULLTEXT';
  /** The (first) label. */
  label: string;
  /** A full-text index over several labels (`FOR (n:A|B)`): all of them, `label` first. */
  labels?: string[];
  properties: string[];
  /** A vector index: its dimensions and similarity function ('COSINE' or 'EUCLIDEAN'). */
  dimensions?: number;
  similarity?: string;
  /** The constraint this index was made for. */
  owningConstraint: string | null;
}

export interface ConstraintDef {
  id: number;
  name: string;
  type: 'UNIQUENESS' | 'NODE_KEY' | 'NODE_PROPERTY_EXISTENCE';
  label: string;
  properties: string[];
}

export const INDEXES = 'cypher_indexes';

/** The labels an index covers. */
export const indexLabels = (def: IndexDef): string[] => def.labels ?? [def.label];
export const CONSTRAINTS = 'cypher_constraints';

export const schemaError = (detail: string, message: string) => new CypherError('Schema', detail, `SchemaError (${detail}): ${message}`);

/** The similarity function of a vector index that matches a collection's distance, or null. */
export function similarityOf(distance: Distance): string | null {
  return distance === 'Cosine' ? 'COSINE' : distance === 'Euclid' ? 'EUCLIDEAN' : null;
}

export function distanceOf(similarity: string): Distance {
  const s = similarity.toLowerCase();
  if (s === 'cosine') return 'Cosine';
  if (s === 'euclidean') return 'Euclid';
  throw schemaError('IndexCreationFailed', `a vector index's similarity function is 'cosine' or 'euclidean', got '${similarity}'`);
}

/**
 * A query's view of the schema: what the collection holds plus what the query (or the Bolt
 * transaction) created or dropped so far; `changes()` is the settings entry to log.
 */
export class SchemaTx {
  private readonly indexes = new Map<string, IndexDef | null>();
  private readonly constraints = new Map<string, ConstraintDef | null>();
  /**
   * Set when the database does not exist yet and a vector index asks for it: the vector size
   * and distance to create it with (Bolt's default database is made on first write).
   */
  collectionConfig: { size: number; distance: Distance } | null = null;

  constructor(private readonly collection: Collection) {}

  get dirty(): boolean {
    return this.indexes.size > 0 || this.constraints.size > 0;
  }

  /** The definitions of a settings group, with this overlay's creations and drops, by id. */
  private merged<T extends { id: number }>(group: string, overlay: Map<string, T | null>): T[] {
    const out = new Map<string, T>();
    for (const [name, def] of Object.entries(this.collection.settings[group] ?? {})) if (def !== null) out.set(name, def as T);
    for (const [name, def] of overlay) {
      if (def) out.set(name, def);
      else out.delete(name);
    }
    return [...out.values()].sort((a, b) => a.id - b.id);
  }

  allIndexes(): IndexDef[] {
    return this.merged(INDEXES, this.indexes);
  }

  allConstraints(): ConstraintDef[] {
    return this.merged(CONSTRAINTS, this.constraints);
  }

  index(name: string): IndexDef | null {
    return this.allIndexes().find((i) => i.name === name) ?? null;
  }

  constraint(name: string): ConstraintDef | null {
    return this.allConstraints().find((c) => c.name === name) ?? null;
  }

  nextId(): number {
    let max = 0;
    for (const d of [...this.allIndexes(), ...this.allConstraints()]) max = Math.max(max, d.id);
    return max + 1;
  }

  putIndex(def: IndexDef): void {
    this.indexes.set(def.name, def);
  }

  putConstraint(def: ConstraintDef): void {
    this.constraints.set(def.name, def);
  }

  dropIndex(name: string): void {
    this.indexes.set(name, null);
  }

  dropConstraint(name: string): void {
    this.constraints.set(name, null);
  }

  /** The settings a `collection_settings` entry merges in: each definition by name, null where dropped. */
  changes(): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    if (this.indexes.size > 0) out[INDEXES] = Object.fromEntries(this.indexes);
    if (this.constraints.size > 0) out[CONSTRAINTS] = Object.fromEntries(this.constraints);
    return out;
  }
}

/** Neo4j's generated name for an unnamed index or constraint: stable for the same definition. */
export function generatedName(prefix: string, parts: string[]): string {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0000')) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${prefix}_${h.toString(16).padStart(8, '0')}`;
}
