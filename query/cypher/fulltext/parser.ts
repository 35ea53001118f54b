import type { LuceneClause, LuceneQuery, Occur } from './query-tree.js';
import { scanLuceneQuery, type LuceneToken, type LuceneTokenKind } from './scanner.js';
import { luceneSyntaxError, LuceneUnsupportedError } from './syntax-error.js';

/** Groups nested deeper than this are refused (the parser and the scorer recurse once per level). */
const MAX_NESTING = 200;

/** Lucene's FuzzyQuery works up to two edits; `word~` asks for two. */
const MAX_EDITS = 2;

/** The tokens a clause may start with (Lucene's grammar: what keeps a query's clause list going). */
const CLAUSE_START = new Set<LuceneTokenKind>(['AND', 'OR', 'NOT', 'PLUS', 'MINUS', 'BAREOPER', 'LPAREN', 'STAR', 'QUOTED', 'TERM', 'PREFIX', 'WILD', 'REGEXP', 'RANGE_START', 'NUMBER']);

type Conjunction = 'none' | 'and' | 'or';
type Modifier = 'none' | 'required' | 'prohibited';

/**
 * Parses a full-text query string with the grammar and clause rules of Lucene's classic query
 * parser as Neo4j configures it (default operator OR, leading wildcards allowed). Returns null
 * for a query with no clause left (Lucene's null query: it matches nothing).
 */
export function parseLuceneQuery(query: string): LuceneQuery | null {
  return new LuceneParser(query).parse();
}

class LuceneParser {
  private readonly tokens: LuceneToken[];
  private i = 0;
  private depth = 0;

  constructor(private readonly query: string) {
    this.tokens = scanLuceneQuery(query);
  }

  parse(): LuceneQuery | null {
    const q = this.clauses(null);
    this.expect('EOF', 'the end of the query, an operator or another clause');
    return q;
  }

  private get peek(): LuceneToken {
    return this.tokens[this.i]!;
  }

  private accept(kind: LuceneTokenKind): LuceneToken | null {
    return this.peek.kind === kind ? this.tokens[this.i++]! : null;
  }

  private expect(kind: LuceneTokenKind, what: string): LuceneToken {
    const t = this.accept(kind);
    if (t === null) this.fail(what);
    return t!;
  }

  private fail(what: string): never {
    const t = this.peek;
    const image = t.kind === 'EOF' ? '<EOF>' : t.text;
    throw luceneSyntaxError(this.query, `Encountered "${image}" at line 1, column ${t.offset}. Was expecting ${what}.`);
  }

  /** Query: Modifiers Clause (Conjunction Modifiers Clause)*, combined by Lucene's addClause rules. */
  private clauses(field: string | null): LuceneQuery | null {
    const clauses: LuceneClause[] = [];
    let first: LuceneQuery | null = null;
    let conj: Conjunction = 'none';
    for (let n = 0; ; n++) {
      const mods = this.modifiers();
      const q = this.clause(field);
      addClause(clauses, conj, mods, q);
      if (n === 0 && mods === 'none') first = q;
      if (!CLAUSE_START.has(this.peek.kind)) break;
      conj = this.accept('AND') ? 'and' : this.accept('OR') ? 'or' : 'none';
    }
    if (clauses.length === 1 && first !== null) return first;
    return clauses.length === 0 ? null : { kind: 'boolean', clauses, boost: 1 };
  }

  private modifiers(): Modifier {
    if (this.accept('PLUS')) return 'required';
    if (this.accept('MINUS') || this.accept('NOT')) return 'prohibited';
    return 'none';
  }

  /** Clause: [field:] (Term | "(" Query ")" [^boost]). */
  private clause(field: string | null): LuceneQuery | null {
    const next = this.tokens[this.i + 1]!;
    if ((this.peek.kind === 'TERM' || this.peek.kind === 'STAR') && next.kind === 'COLON') {
      field = this.peek.kind === 'STAR' ? '*' : unescape(this.peek.text);
      this.i += 2;
    }
    const open = this.accept('LPAREN');
    if (open) {
      if (++this.depth > MAX_NESTING) throw new LuceneUnsupportedError(`the query nests parentheses more than ${MAX_NESTING} levels deep (at column ${open.offset}); flatten it`);
      const q = this.clauses(field);
      this.expect('RPAREN', '")", an operator or another clause');
      this.depth--;
      return withBoost(q, this.boost());
    }
    return this.term(field);
  }

  private boost(): number {
    if (!this.accept('CARAT')) return 1;
    return Number(this.expect('NUMBER', 'a number after "^"').text);
  }

  private term(field: string | null): LuceneQuery | null {
    const t = this.peek;
    switch (t.kind) {
      case 'QUOTED': {
        this.i++;
        const slopToken = this.accept('FUZZY_SLOP');
        const slop = slopToken ? Math.trunc(Number.parseFloat(slopToken.text.slice(1))) || 0 : 0;
        const boost = this.boost();
        return { kind: 'phrase', field, text: unescape(t.text.slice(1, -1)), slop, boost };
      }
      case 'RANGE_START':
        return this.range(field);
      case 'TERM':
      case 'STAR':
      case 'PREFIX':
      case 'WILD':
      case 'REGEXP':
      case 'NUMBER':
      case 'BAREOPER': {
        this.i++;
        let slop = this.accept('FUZZY_SLOP');
        let boost = 1;
        if (this.peek.kind === 'CARAT') {
          boost = this.boost();
          slop = this.accept('FUZZY_SLOP') ?? slop;
        }
        return this.bareTerm(field, t, slop, boost);
      }
      default:
        return this.fail('a term, a "quoted phrase", a range or "("');
    }
  }

  /** Lucene's handleBareTokenQuery: a wildcard, prefix, regular expression, fuzzy or plain term. */
  private bareTerm(field: string | null, t: LuceneToken, slop: LuceneToken | null, boost: number): LuceneQuery {
    if (t.kind === 'REGEXP') throw new LuceneUnsupportedError(`regular expression queries (${t.text} at column ${t.offset}) are not supported by this engine; use a wildcard (w?rd, wo*d), a fuzzy term (word~) or escape the slashes (\\/)`);
    if (t.kind === 'STAR' && field === '*') return { kind: 'all', boost };
    if (t.kind === 'STAR' || t.kind === 'WILD') return { kind: 'wildcard', field, pattern: wildcardPattern(t.text), boost };
    if (t.kind === 'PREFIX') return { kind: 'prefix', field, prefix: unescape(t.text.slice(0, -1)).toLowerCase(), boost };
    const text = t.kind === 'BAREOPER' ? t.text.slice(0, 1) : unescape(t.text);
    if (slop === null) return { kind: 'term', field, text, boost };
    let similarity = MAX_EDITS;
    const given = Number.parseFloat(slop.text.slice(1));
    if (!Number.isNaN(given)) similarity = given;
    if (similarity < 0) throw luceneSyntaxError(this.query, 'Minimum similarity for a FuzzyQuery has to be between 0.0f and 1.0f !');
    if (similarity >= 1 && !Number.isInteger(similarity)) throw luceneSyntaxError(this.query, 'Fractional edit distances are not allowed!');
    const term = text.toLowerCase();
    // Lucene's FuzzyQuery.floatToEdits: a whole number is edits (at most 2); a fraction is the old
    // minimum similarity, read as a Java float (so ~0.6 on 5 characters is 1 edit, not 2).
    const length = [...term].length;
    const maxEdits = similarity >= 1 ? Math.min(similarity, MAX_EDITS) : similarity === 0 ? 0 : Math.min(Math.trunc((1 - Math.fround(similarity)) * length), MAX_EDITS);
    return { kind: 'fuzzy', field, term, maxEdits, boost };
  }

  /** [lower TO upper] or {lower TO upper} (either end may be `*`, and the brackets may be mixed). */
  private range(field: string | null): LuceneQuery {
    const open = this.expect('RANGE_START', 'a range');
    const bound = (): string | null => {
      const t = this.peek;
      if (t.kind !== 'RANGE_GOOP' && t.kind !== 'QUOTED' && t.kind !== 'RANGE_TO') this.fail('a range bound');
      this.i++;
      if (t.kind === 'QUOTED') return unescape(t.text.slice(1, -1)).toLowerCase();
      return t.text === '*' ? null : unescape(t.text).toLowerCase();
    };
    const lower = bound();
    this.expect('RANGE_TO', '"TO"');
    const upper = bound();
    const close = this.expect('RANGE_END', '"]" or "}"');
    const boost = this.boost();
    return { kind: 'range', field, lower, upper, includeLower: open.text === '[', includeUpper: close.text === ']', boost };
  }
}

/** Lucene's QueryParserBase.addClause, for the default operator OR. */
function addClause(clauses: LuceneClause[], conj: Conjunction, mods: Modifier, q: LuceneQuery | null): void {
  const last = clauses[clauses.length - 1];
  // AND makes the clause before it required too, unless that one is prohibited.
  if (last && conj === 'and' && last.occur !== 'must_not') last.occur = 'must';
  if (q === null) return;
  const prohibited = mods === 'prohibited';
  const required = mods === 'required' || (conj === 'and' && !prohibited);
  const occur: Occur = prohibited ? 'must_not' : required ? 'must' : 'should';
  clauses.push({ occur, query: q });
}

function withBoost(q: LuceneQuery | null, boost: number): LuceneQuery | null {
  return q === null || boost === 1 ? q : { ...q, boost: q.boost * boost };
}

/** Lucene's discardEscapeChar: `\x` is x. */
function unescape(text: string): string {
  return text.replace(/\\([\s\S])/g, '$1');
}

/** A wildcard term as an anchored pattern over a whole indexed term: `*` any run, `?` one character, `\x` a literal x. */
function wildcardPattern(text: string): RegExp {
  let source = '';
  for (let j = 0; j < text.length; j++) {
    const c = text[j]!;
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else {
      const literal = c === '\\' ? text[++j]! : c;
      source += literal.toLowerCase().replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`, 'su');
}
