/** One property of a node as a query reads it: its length in tokens and where its terms occur. */
export interface AnalysedField {
  readonly length: number;
  /** How many times the term occurs (0: not at all). */
  frequency(term: string): number;
  /** Where the term occurs, in order; undefined when it does not. */
  positions(term: string): readonly number[] | undefined;
  /** Whether one of the field's terms passes the test. */
  some(test: (term: string) => boolean): boolean;
}

/** A node's indexed properties, each a Lucene field, by property name (undefined: the field holds no token the query may look up; one holding tokens may be given whole). */
export interface AnalysedDoc {
  field(name: string): AnalysedField | undefined;
}

/** A field as a scan keeps it: the positions of the tokens the query may look up. */
class ScannedField implements AnalysedField {
  constructor(private readonly at: Map<string, number[]>, readonly length: number) {}

  frequency(term: string): number {
    return this.at.get(term)?.length ?? 0;
  }

  positions(term: string): readonly number[] | undefined {
    return this.at.get(term);
  }

  some(test: (term: string) => boolean): boolean {
    for (const t of this.at.keys()) if (test(t)) return true;
    return false;
  }
}

/** A node's fields as a scan keeps them. */
export class ScannedDoc implements AnalysedDoc {
  readonly fields = new Map<string, ScannedField>();

  field(name: string): AnalysedField | undefined {
    return this.fields.get(name);
  }
}

/**
 * A node's fields as a query scores them: the positions of the tokens the query may look up
 * (`relevant`), and the length of each field holding one (a field holding none scores nothing).
 * Null when no field holds such a token.
 */
export function relevantDoc(fields: Map<string, string[]>, relevant: (term: string) => boolean): ScannedDoc | null {
  let doc: ScannedDoc | null = null;
  for (const [name, tokens] of fields) {
    let positions: Map<string, number[]> | null = null;
    tokens.forEach((t, p) => {
      if (!relevant(t)) return;
      positions ??= new Map();
      const at = positions.get(t);
      if (at) at.push(p);
      else positions.set(t, [p]);
    });
    if (positions) (doc ??= new ScannedDoc()).fields.set(name, new ScannedField(positions, tokens.length));
  }
  return doc;
}

/** A term's document frequency in a field; `lastDoc` is the last document counted, so a repeated token counts once. */
interface TermStats {
  docFreq: number;
  lastDoc: number;
}

/**
 * Lucene's per-field collection statistics: documents with at least one token in the field,
 * their token total, each term's document frequency, and the field's terms (which prefix,
 * wildcard, range and fuzzy clauses walk).
 */
export interface FieldStatistics {
  readonly docCount: number;
  readonly totalLength: number;
  docFreq(term: string): number;
  terms(): Iterable<string>;
}

/** What a query is compiled against: the index's properties and each field's statistics (undefined for a field no document has a token in). */
export interface IndexStatistics {
  readonly properties: readonly string[];
  field(name: string): FieldStatistics | undefined;
}

/** FieldStatistics gathered over a scan of the documents. */
export class FieldStats implements FieldStatistics {
  docCount = 0;
  totalLength = 0;
  readonly termStats = new Map<string, TermStats>();

  docFreq(term: string): number {
    return this.termStats.get(term)?.docFreq ?? 0;
  }

  terms(): Iterable<string> {
    return this.termStats.keys();
  }
}

/** The statistics of every field of an index, gathered over its documents one at a time (a query over nodes its transaction wrote, which the index view does not hold). */
export class IndexStats implements IndexStatistics {
  readonly fields = new Map<string, FieldStats>();
  docCount = 0;
  /** Distinct terms held over all fields, for the memory the caller charges. */
  termCount = 0;

  constructor(readonly properties: readonly string[]) {}

  field(name: string): FieldStats | undefined {
    return this.fields.get(name);
  }

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
        const term = stats.termStats.get(t);
        if (!term) {
          stats.termStats.set(t, { docFreq: 1, lastDoc: doc });
          this.termCount++;
        } else if (term.lastDoc !== doc) {
          term.docFreq++;
          term.lastDoc = doc;
        }
      }
    }
  }
}
