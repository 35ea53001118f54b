import { textTokens } from '../../../storage/text-tokens.js';

/** One property of a node as a query reads it: where each of the query's terms occurs, and how many tokens the property has. */
export interface AnalysedField {
  positions: Map<string, number[]>;
  length: number;
}

/** A node's indexed properties, each a Lucene field, by property name. */
export type AnalysedDoc = Map<string, AnalysedField>;

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * The tokens of a node's fields for a full-text index over `properties`: each string or
 * list-of-strings property analysed as the index analyses text (the payload text index's tokens:
 * lower-case runs of letters and digits, no stop words, like Neo4j's default
 * 'standard-no-stop-words' analyzer on plain words). A list's strings are values of one field,
 * their tokens following each other (no position gap, as Lucene's standard analyzer adds none).
 * Null when the node has none of them: it is not in the index.
 */
export function fieldTokens(payload: Record<string, unknown>, properties: readonly string[]): Map<string, string[]> | null {
  let fields: Map<string, string[]> | null = null;
  for (const key of properties) {
    const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
    if (typeof value === 'string') (fields ??= new Map()).set(key, textTokens(value));
    else if (isStringList(value)) (fields ??= new Map()).set(key, value.flatMap((v) => textTokens(v)));
  }
  return fields;
}

/**
 * A node's fields as a query scores them: the positions of the tokens the query may look up
 * (`relevant`), and the length of each field holding one (a field holding none scores nothing).
 * Null when no field holds such a token.
 */
export function relevantDoc(fields: Map<string, string[]>, relevant: (term: string) => boolean): AnalysedDoc | null {
  let doc: AnalysedDoc | null = null;
  for (const [name, tokens] of fields) {
    let positions: Map<string, number[]> | null = null;
    tokens.forEach((t, p) => {
      if (!relevant(t)) return;
      positions ??= new Map();
      const at = positions.get(t);
      if (at) at.push(p);
      else positions.set(t, [p]);
    });
    if (positions) (doc ??= new Map()).set(name, { positions, length: tokens.length });
  }
  return doc;
}

/** A term's document frequency in a field; `lastDoc` is the last document counted, so a repeated token counts once. */
interface TermStats {
  docFreq: number;
  lastDoc: number;
}

/** Lucene's per-field collection statistics: documents with the field, their token total, and each term's document frequency. */
export class FieldStats {
  docCount = 0;
  totalLength = 0;
  readonly terms = new Map<string, TermStats>();

  docFreq(term: string): number {
    return this.terms.get(term)?.docFreq ?? 0;
  }
}

/** The statistics of every field of an index, gathered over its documents one at a time. */
export class IndexStats {
  readonly fields = new Map<string, FieldStats>();
  docCount = 0;
  /** Distinct terms held over all fields, for the memory the caller charges. */
  termCount = 0;

  constructor(readonly properties: readonly string[]) {}

  add(fields: Map<string, string[]>): void {
    const doc = ++this.docCount;
    for (const [name, tokens] of fields) {
      // Lucene counts a field only in documents where it has at least one token.
      if (tokens.length === 0) continue;
      let stats = this.fields.get(name);
      if (!stats) this.fields.set(name, (stats = new FieldStats()));
      stats.docCount++;
      stats.totalLength += tokens.length;
      for (const t of tokens) {
        const term = stats.terms.get(t);
        if (!term) {
          stats.terms.set(t, { docFreq: 1, lastDoc: doc });
          this.termCount++;
        } else if (term.lastDoc !== doc) {
          term.docFreq++;
          term.lastDoc = doc;
        }
      }
    }
  }
}
