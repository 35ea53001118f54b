import { textTokens } from '../../../storage/text-tokens.js';

/** One property of a node as the full-text index holds it: where each token occurs, and how many tokens. */
export interface AnalysedField {
  positions: Map<string, number[]>;
  length: number;
}

/** A node's indexed properties, each a Lucene field, by property name. */
export type AnalysedDoc = Map<string, AnalysedField>;

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * The fields of a node for a full-text index over `properties`: each string or list-of-strings
 * property analysed as the index analyses text (the payload text index's tokens: lower-case runs
 * of letters and digits, no stop words, like Neo4j's default 'standard-no-stop-words' analyzer on
 * plain words). A list's strings are values of one field, their tokens following each other (no
 * position gap, as Lucene's standard analyzer adds none). Null when the node has none of them:
 * it is not in the index.
 */
export function analyseDoc(payload: Record<string, unknown>, properties: readonly string[]): AnalysedDoc | null {
  let doc: AnalysedDoc | null = null;
  for (const key of properties) {
    const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
    if (typeof value !== 'string' && !isStringList(value)) continue;
    const positions = new Map<string, number[]>();
    const tokens = typeof value === 'string' ? textTokens(value) : value.flatMap(textTokens);
    tokens.forEach((t, p) => {
      const at = positions.get(t);
      if (at) at.push(p);
      else positions.set(t, [p]);
    });
    (doc ??= new Map()).set(key, { positions, length: tokens.length });
  }
  return doc;
}

/** Lucene's per-field collection statistics: documents with the field, their token total, and each term's document frequency. */
export interface FieldStats {
  docCount: number;
  totalLength: number;
  docFreq: Map<string, number>;
}

/** The statistics of every field of an index, gathered over its documents one at a time. */
export class IndexStats {
  readonly fields = new Map<string, FieldStats>();
  docCount = 0;
  /** Distinct terms held, for the memory the caller charges. */
  terms = 0;

  constructor(readonly properties: readonly string[]) {}

  add(doc: AnalysedDoc): void {
    this.docCount++;
    for (const [name, field] of doc) {
      // Lucene counts a field only in documents where it has at least one token.
      if (field.length === 0) continue;
      let stats = this.fields.get(name);
      if (!stats) this.fields.set(name, (stats = { docCount: 0, totalLength: 0, docFreq: new Map() }));
      stats.docCount++;
      stats.totalLength += field.length;
      for (const term of field.positions.keys()) {
        const df = stats.docFreq.get(term);
        if (df === undefined) this.terms++;
        stats.docFreq.set(term, (df ?? 0) + 1);
      }
    }
  }
}
