import { textTokens } from '../../../storage/text-tokens.js';
import type { AnalysedDoc, FieldStatistics, IndexStatistics } from './analysed-doc.js';
import { editDistance } from './edit-distance.js';
import type { LuceneQuery, Occur } from './query-tree.js';

/** BM25's term-frequency saturation and length normalisation (Lucene's defaults). */
const K1 = 1.2;
const B = 0.75;
/** How many indexed terms a fuzzy term expands to at most (Lucene's FuzzyQuery.defaultMaxExpansions). */
const MAX_EXPANSIONS = 50;

/** A compiled query: a node's score, or null when the node does not match. */
export type DocScorer = (doc: AnalysedDoc) => number | null;

const NOTHING: DocScorer = () => null;

/**
 * Compiles a parsed query against an index's statistics, scoring as Lucene 9 does (Neo4j 5's
 * engine): a term is BM25 within one field (that field's document count, average length and
 * the term's document frequency), without the old (k1 + 1) factor; a phrase sums its terms'
 * idf; prefix, wildcard and range clauses give a constant score (their boost) per field they
 * match; a fuzzy term sums the BM25 of the indexed terms it expands to, each weighted by its
 * similarity, with their largest document frequency for all (Lucene's blended rewrite); a
 * boolean query sums its matching required and optional clauses. An unqualified clause is the
 * OR of that clause on each property of the index, so its scores add up over the properties.
 * Null when the query has nothing left to match by (its words analyse to no token).
 */
export function compileLuceneQuery(q: LuceneQuery, stats: IndexStatistics): DocScorer | null {
  switch (q.kind) {
    case 'boolean':
      return booleanScorer(
        q.clauses.flatMap((c) => {
          const scorer = compileLuceneQuery(c.query, stats);
          return scorer === null ? [] : [{ occur: c.occur, scorer }];
        }),
        q.boost,
      );
    case 'all':
      return () => q.boost;
    case 'term': {
      const tokens = textTokens(q.text);
      if (tokens.length === 0) return null;
      return anyOf(tokens.map((t) => anyOf(fieldsOf(q.field, stats).map((f) => termScorer(stats.field(f), f, t, 1)), 1)), q.boost);
    }
    case 'phrase': {
      const tokens = textTokens(q.text);
      if (tokens.length === 0) return null;
      return anyOf(
        fieldsOf(q.field, stats).map((f) => (tokens.length === 1 ? termScorer(stats.field(f), f, tokens[0]!, 1) : phraseScorer(stats.field(f), f, tokens, q.slop))),
        q.boost,
      );
    }
    case 'prefix':
      return anyOf(fieldsOf(q.field, stats).map((f) => constantScorer(stats.field(f), f, (t) => t.startsWith(q.prefix))), q.boost);
    case 'wildcard':
      return anyOf(fieldsOf(q.field, stats).map((f) => constantScorer(stats.field(f), f, (t) => q.pattern.test(t))), q.boost);
    case 'range': {
      const inRange = (t: string) =>
        (q.lower === null || (q.includeLower ? t >= q.lower : t > q.lower)) && (q.upper === null || (q.includeUpper ? t <= q.upper : t < q.upper));
      return anyOf(fieldsOf(q.field, stats).map((f) => constantScorer(stats.field(f), f, inRange)), q.boost);
    }
    case 'fuzzy':
      return anyOf(fieldsOf(q.field, stats).map((f) => fuzzyScorer(stats.field(f), f, q.term, q.maxEdits)), q.boost);
  }
}

/** The indexed tokens a query may look up (queryTerms). */
export interface QueryTerms {
  relevant: (term: string) => boolean;
  /** The query matches nodes by being in the index at all (`*:*`). */
  all: boolean;
  /** Its words as analysed: with no pattern clause, the only relevant tokens. */
  words: ReadonlySet<string>;
  /** It has prefix, wildcard, range or fuzzy clauses: which terms they match is known by testing each. */
  patterns: boolean;
}

/**
 * Which indexed tokens a query may look up (its words, and the terms its prefixes, wildcards,
 * ranges and fuzzy terms match), so that only those are kept of each node.
 */
export function queryTerms(q: LuceneQuery): QueryTerms {
  const words = new Set<string>();
  const tests: ((term: string) => boolean)[] = [];
  let all = false;
  const visit = (n: LuceneQuery): void => {
    switch (n.kind) {
      case 'boolean':
        return n.clauses.forEach((c) => visit(c.query));
      case 'all':
        all = true;
        return;
      case 'term':
      case 'phrase':
        return textTokens(n.text).forEach((t) => words.add(t));
      case 'prefix':
        return void tests.push((t) => t.startsWith(n.prefix));
      case 'wildcard':
        return void tests.push((t) => n.pattern.test(t));
      case 'range':
        return void tests.push((t) => (n.lower === null || t >= n.lower) && (n.upper === null || t <= n.upper));
      case 'fuzzy': {
        const chars = [...n.term];
        return void tests.push((t) => editDistance(chars, [...t], n.maxEdits) <= n.maxEdits);
      }
    }
  };
  visit(q);
  if (tests.length === 0) return { relevant: (t) => words.has(t), all, words, patterns: false };
  // A multi-term clause is tested once per distinct token.
  const seen = new Map<string, boolean>();
  const relevant = (t: string) => {
    if (words.has(t)) return true;
    let yes = seen.get(t);
    if (yes === undefined) seen.set(t, (yes = tests.some((test) => test(t))));
    return yes;
  };
  return { relevant, all, words, patterns: true };
}

/** The fields a clause searches: its own (if the index has it; otherwise none), or all of the index's. */
const fieldsOf = (field: string | null, stats: IndexStatistics): readonly string[] => (field === null ? stats.properties : stats.properties.includes(field) ? [field] : []);

const idf = (docFreq: number, docCount: number) => Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5));

/**
 * A field's length as Lucene's norms keep it: exact below 24 tokens, above that rounded down to
 * four significant bits (SmallFloat.intToByte4), so long fields of close lengths score alike.
 */
export function normLength(length: number): number {
  if (length < 24) return length;
  const rest = length - 24;
  const bits = Math.floor(Math.log2(rest)) + 1;
  if (bits < 4) return length;
  const shift = bits - 4;
  return 24 + Math.floor(rest / 2 ** shift) * 2 ** shift;
}

/** BM25 of `freq` occurrences in a field of `length` tokens, for a clause weighing `weight` (boost × idf). */
const bm25 = (weight: number, freq: number, length: number, average: number) => (weight * freq) / (freq + K1 * (1 - B + (B * normLength(length)) / average));

function termScorer(fs: FieldStatistics | undefined, field: string, term: string, boost: number): DocScorer {
  const df = fs?.docFreq(term);
  if (!fs || !df) return NOTHING;
  const weight = boost * idf(df, fs.docCount);
  const average = fs.totalLength / fs.docCount;
  return (doc) => {
    const f = doc.field(field);
    const tf = f?.frequency(term);
    return f && tf ? bm25(weight, tf, f.length, average) : null;
  };
}

/**
 * The phrase's occurrences in a field: exact (slop 0) counts the places where the tokens follow
 * each other; with a slop, each place of the first token where the others lie within `slop`
 * moves of their places in the phrase counts 1 / (1 + moves), as Lucene's sloppy phrases do
 * (the other tokens taken at their nearest occurrences: an approximation of Lucene's matcher).
 */
function phraseFrequency(lists: (readonly number[])[], slop: number): number {
  let freq = 0;
  for (const start of lists[0]!) {
    if (slop === 0) {
      if (lists.every((ps, i) => ps.includes(start + i))) freq++;
      continue;
    }
    let low = start;
    let high = start;
    for (let i = 1; i < lists.length; i++) {
      let best = Infinity;
      for (const p of lists[i]!) if (Math.abs(p - i - start) < Math.abs(best - start)) best = p - i;
      low = Math.min(low, best);
      high = Math.max(high, best);
    }
    if (high - low <= slop) freq += 1 / (1 + high - low);
  }
  return freq;
}

function phraseScorer(fs: FieldStatistics | undefined, field: string, tokens: string[], slop: number): DocScorer {
  if (!fs || tokens.some((t) => !fs.docFreq(t))) return NOTHING;
  const weight = tokens.reduce((sum, t) => sum + idf(fs.docFreq(t), fs.docCount), 0);
  const average = fs.totalLength / fs.docCount;
  return (doc) => {
    const f = doc.field(field);
    if (!f) return null;
    const lists = tokens.map((t) => f.positions(t));
    if (lists.some((l) => l === undefined)) return null;
    const freq = phraseFrequency(lists as (readonly number[])[], slop);
    return freq > 0 ? bm25(weight, freq, f.length, average) : null;
  };
}

/** Lucene's constant-score rewrite of prefix, wildcard and range queries: 1 for a field holding any matching term. */
function constantScorer(fs: FieldStatistics | undefined, field: string, matches: (term: string) => boolean): DocScorer {
  const terms = new Set([...(fs?.terms() ?? [])].filter(matches));
  if (terms.size === 0) return NOTHING;
  const indexed = (t: string) => terms.has(t);
  return (doc) => (doc.field(field)?.some(indexed) ? 1 : null);
}

/**
 * A fuzzy term: the field's terms within `maxEdits` edits whose similarity (1 − edits ÷ the
 * shorter length) is above 0, the 50 most similar, each scored as a term query weighted by its
 * similarity, all with the largest document frequency among them.
 */
function fuzzyScorer(fs: FieldStatistics | undefined, field: string, term: string, maxEdits: number): DocScorer {
  if (!fs) return NOTHING;
  const chars = [...term];
  const expansions: { term: string; similarity: number }[] = [];
  for (const candidate of fs.terms()) {
    const other = [...candidate];
    const edits = editDistance(chars, other, maxEdits);
    if (edits > maxEdits) continue;
    const similarity = edits === 0 ? 1 : 1 - edits / Math.min(chars.length, other.length);
    if (similarity > 0) expansions.push({ term: candidate, similarity });
  }
  if (expansions.length === 0) return NOTHING;
  expansions.sort((a, b) => b.similarity - a.similarity || (a.term < b.term ? -1 : 1));
  const kept = expansions.slice(0, MAX_EXPANSIONS);
  const blended = idf(Math.max(...kept.map((e) => fs.docFreq(e.term))), fs.docCount);
  const average = fs.totalLength / fs.docCount;
  return (doc) => {
    const f = doc.field(field);
    if (!f) return null;
    let score: number | null = null;
    for (const e of kept) {
      const tf = f.frequency(e.term);
      if (tf) score = (score ?? 0) + bm25(e.similarity * blended, tf, f.length, average);
    }
    return score;
  };
}

/** Optional clauses: a node matches when any does, scoring their sum. */
const anyOf = (scorers: DocScorer[], boost: number): DocScorer =>
  booleanScorer(
    scorers.map((scorer) => ({ occur: 'should' as const, scorer })),
    boost,
  );

/**
 * Lucene's BooleanQuery: every required clause must match and no prohibited one; without a
 * required clause at least one optional clause must. The score is the sum of the matching
 * required and optional clauses. Only prohibited clauses match nothing.
 */
function booleanScorer(clauses: { occur: Occur; scorer: DocScorer }[], boost: number): DocScorer {
  const must = clauses.filter((c) => c.occur === 'must').map((c) => c.scorer);
  const should = clauses.filter((c) => c.occur === 'should' && c.scorer !== NOTHING).map((c) => c.scorer);
  const not = clauses.filter((c) => c.occur === 'must_not' && c.scorer !== NOTHING).map((c) => c.scorer);
  if (must.includes(NOTHING) || (must.length === 0 && should.length === 0)) return NOTHING;
  if (must.length === 0 && should.length === 1 && not.length === 0 && boost === 1) return should[0]!;
  return (doc) => {
    let sum = 0;
    for (const m of must) {
      const s = m(doc);
      if (s === null) return null;
      sum += s;
    }
    for (const n of not) if (n(doc) !== null) return null;
    let matched = must.length > 0;
    for (const o of should) {
      const s = o(doc);
      if (s !== null) {
        sum += s;
        matched = true;
      }
    }
    return matched ? sum * boost : null;
  };
}
