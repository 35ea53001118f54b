import type { Payload } from '../../../storage/events/types.js';
import type { PointId } from '../../../storage/point-id.js';
import { fieldTokens, type FullTextIndex } from '../../../storage/views/fulltext-index.js';
import { listBytes } from '../sizes.js';
import { IndexStats, relevantDoc, ScannedDoc, type AnalysedDoc, type AnalysedField } from './analysed-doc.js';
import type { LuceneQuery } from './query-tree.js';
import { compileLuceneQuery, type QueryTerms } from './scorer.js';

/** A node in the index with no token the query looks up (`*:*` matches it). */
const NO_FIELDS = new ScannedDoc();

/** A node that matched, with its score. */
export interface Scored {
  id: PointId;
  score: number;
}

/** The query's budget: a step per node looked at, and the bytes it holds while it ranks them. */
export interface Budget {
  step(): void;
  hold(bytes: number, what: string): void;
}

/** A document's field read from its tokens in the index (term numbers in order): nothing is copied. */
class IndexedField implements AnalysedField {
  tokens: Int32Array = new Int32Array(0);

  constructor(private readonly index: FullTextIndex) {}

  get length(): number {
    return this.tokens.length;
  }

  frequency(term: string): number {
    const id = this.index.termId(term);
    let n = 0;
    for (const t of this.tokens) if (t === id) n++;
    return n;
  }

  positions(term: string): readonly number[] | undefined {
    const id = this.index.termId(term);
    let at: number[] | undefined;
    this.tokens.forEach((t, p) => {
      if (t === id) (at ??= []).push(p);
    });
    return at;
  }

  some(test: (term: string) => boolean): boolean {
    for (const t of this.tokens) if (test(this.index.termText(t))) return true;
    return false;
  }
}

/** The index's documents as the scorer reads them, one at a time (`at` moves it to the next). */
class IndexedDoc implements AnalysedDoc {
  private doc = 0;
  private readonly fields: Map<string, IndexedField>;

  constructor(private readonly index: FullTextIndex) {
    this.fields = new Map(index.properties.map((p) => [p, new IndexedField(index)]));
  }

  at(doc: number): this {
    this.doc = doc;
    return this;
  }

  field(name: string): AnalysedField | undefined {
    const tokens = this.index.field(name)?.tokens[this.doc];
    const f = this.fields.get(name);
    if (!tokens || !f) return undefined;
    f.tokens = tokens;
    return f;
  }
}

/**
 * The documents of the index's postings that may match: those holding a term the query may look
 * up (every document for `*:*`). Plain words are looked up; the terms a prefix, wildcard,
 * range or fuzzy clause matches are found by walking the term dictionary.
 */
function candidateDocs(index: FullTextIndex, terms: QueryTerms): number[] {
  const docs: number[] = [];
  if (terms.all) {
    index.forEachDoc((doc) => docs.push(doc));
    return docs;
  }
  const ids: number[] = [];
  if (terms.patterns) {
    for (const [term, id] of index.terms()) if (terms.relevant(term)) ids.push(id);
  } else {
    for (const word of terms.words) {
      const id = index.termId(word);
      if (id !== undefined) ids.push(id);
    }
  }
  const seen = new Uint8Array(index.docBound);
  for (const name of index.properties) {
    const field = index.field(name);
    if (!field) continue;
    for (const id of ids) {
      for (const doc of field.docsWith(id)) {
        if (seen[doc]) continue;
        seen[doc] = 1;
        docs.push(doc);
      }
    }
  }
  return docs;
}

/** The query over the index's postings: its statistics are the index's, and only the documents holding a term it looks up are scored. */
export function rankIndexed(index: FullTextIndex, query: LuceneQuery, terms: QueryTerms, budget: Budget): Scored[] {
  const scorer = compileLuceneQuery(query, index);
  if (!scorer) return [];
  const docs = candidateDocs(index, terms);
  budget.hold(listBytes(docs.length), 'the nodes a full-text query ranks');
  const doc = new IndexedDoc(index);
  const scored: Scored[] = [];
  for (const d of docs) {
    budget.step();
    const score = scorer(doc.at(d));
    if (score === null) continue;
    budget.hold(listBytes(2), 'the nodes a full-text query ranks');
    scored.push({ id: index.idOf(d), score });
  }
  return scored;
}

/**
 * The query over the index's nodes as its transaction sees them (when it wrote nodes the
 * index's view does not hold yet): one pass gathers each field's statistics and keeps, of each
 * node, only the tokens the query looks up; the nodes are scored once the statistics are whole.
 */
export function rankScanned(nodes: Iterable<PointId>, payloadOf: (id: PointId) => Payload | null, properties: readonly string[], query: LuceneQuery, terms: QueryTerms, budget: Budget): Scored[] {
  const stats = new IndexStats(properties);
  const candidates: { id: PointId; doc: ScannedDoc }[] = [];
  for (const id of nodes) {
    budget.step();
    const payload = payloadOf(id);
    const fields = payload ? fieldTokens(payload, properties) : null;
    if (!fields) continue;
    const before = stats.termCount;
    stats.add(fields);
    if (stats.termCount > before) budget.hold(listBytes(2) * (stats.termCount - before), 'the terms of a full-text index');
    const doc = relevantDoc(fields, terms.relevant);
    if (!doc && !terms.all) continue;
    budget.hold(listBytes(2 + 2 * fields.size), 'the nodes a full-text query ranks');
    candidates.push({ id, doc: doc ?? NO_FIELDS });
  }
  const scorer = compileLuceneQuery(query, stats);
  const scored: Scored[] = [];
  for (const { id, doc } of scorer ? candidates : []) {
    budget.step();
    const score = scorer!(doc);
    if (score !== null) scored.push({ id, score });
  }
  return scored;
}
