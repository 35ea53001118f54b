/**
 * A parsed full-text query, as Lucene's classic query parser builds it. `field` null means every
 * property of the index (Neo4j parses with a MultiFieldQueryParser over them: an unqualified
 * clause is the OR of the same clause on each property). Texts are unescaped and not yet
 * analysed; `boost` multiplies the clause's score (`^2`), 1 when not given.
 */
export type LuceneQuery =
  /** A bare word: analysed into tokens, each a term query (several tokens are OR-ed). */
  | { kind: 'term'; field: string | null; text: string; boost: number }
  /** "quoted words": the analysed tokens in order, at most `slop` moves apart. */
  | { kind: 'phrase'; field: string | null; text: string; slop: number; boost: number }
  /** word*: every indexed term starting with `prefix` (lower-cased, not analysed). */
  | { kind: 'prefix'; field: string | null; prefix: string; boost: number }
  /** w?rd, w*d: `pattern` matches a whole indexed term (lower-cased, not analysed). */
  | { kind: 'wildcard'; field: string | null; pattern: RegExp; boost: number }
  /** word~N: indexed terms within N edits (Damerau-Levenshtein, N at most 2). */
  | { kind: 'fuzzy'; field: string | null; term: string; maxEdits: number; boost: number }
  /** [a TO b], {a TO b}: indexed terms between the bounds (null: open). */
  | { kind: 'range'; field: string | null; lower: string | null; upper: string | null; includeLower: boolean; includeUpper: boolean; boost: number }
  /** *:* — every node of the index. */
  | { kind: 'all'; boost: number }
  | { kind: 'boolean'; clauses: LuceneClause[]; boost: number };

/** Lucene's BooleanClause.Occur: required (+, AND), optional (OR, the default) or prohibited (-, NOT). */
export type Occur = 'must' | 'should' | 'must_not';

export interface LuceneClause {
  occur: Occur;
  query: LuceneQuery;
}
