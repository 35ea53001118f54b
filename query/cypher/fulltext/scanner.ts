import { luceneSyntaxError } from './syntax-error.js';

/**
 * The tokens of Lucene's classic query syntax, as its lexer names them. A TERM, PREFIX, WILD or
 * QUOTED token's `text` keeps its backslash escapes (each later stage reads them its own way).
 */
export type LuceneTokenKind =
  | 'AND'
  | 'OR'
  | 'NOT'
  | 'PLUS'
  | 'MINUS'
  | 'LPAREN'
  | 'RPAREN'
  | 'COLON'
  | 'STAR'
  | 'CARAT'
  | 'NUMBER'
  | 'QUOTED'
  | 'TERM'
  | 'PREFIX'
  | 'WILD'
  | 'REGEXP'
  | 'FUZZY_SLOP'
  | 'BAREOPER'
  | 'RANGE_START'
  | 'RANGE_END'
  | 'RANGE_TO'
  | 'RANGE_GOOP'
  | 'EOF';

export interface LuceneToken {
  kind: LuceneTokenKind;
  text: string;
  /** 0-based offset in the query string, as Lucene's messages count columns. */
  offset: number;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\u3000']);
/** Characters that end a term unless escaped (`-` and `+` may continue one). */
const SPECIAL = new Set(['+', '-', '!', '(', ')', ':', '^', '[', ']', '"', '{', '}', '~', '*', '?', '\\', '/']);

/** The one-character operators. */
const SINGLE: Partial<Record<string, LuceneTokenKind>> = { '+': 'PLUS', '-': 'MINUS', '!': 'NOT', '(': 'LPAREN', ')': 'RPAREN', ':': 'COLON', '^': 'CARAT' };

const isTermStart = (c: string) => !WHITESPACE.has(c) && !SPECIAL.has(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * Splits a full-text query string into tokens the way Lucene's classic query parser lexes it
 * (the longest token wins; on a tie the operator words AND, OR, NOT win over a term). Inside
 * `[ ... ]` or `{ ... }` the range words are read instead. An unterminated quote, regular
 * expression or trailing backslash is a lexical error naming its position.
 */
export function scanLuceneQuery(query: string): LuceneToken[] {
  const tokens: LuceneToken[] = [];
  let i = 0;
  let inRange = false;
  // After `^` a boost number is read (Lucene's Boost lexical state).
  let afterCarat = false;
  const push = (kind: LuceneTokenKind, start: number, end: number) => tokens.push({ kind, text: query.slice(start, end), offset: start });
  /** Consumes term characters from `from` (escapes included, and `*` or `?` when `wild`); returns where they end. */
  const termRun = (from: number, wild: boolean): number => {
    let j = from;
    while (j < query.length) {
      const c = query[j]!;
      if (c === '\\') {
        if (j + 1 >= query.length) throw luceneSyntaxError(query, `Lexical error at line 1, column ${j + 1}.  Encountered: <EOF> after : "${query.slice(from, j + 1)}"`);
        j += 2;
      } else if (isTermStart(c) || c === '-' || c === '+' || (wild && (c === '*' || c === '?'))) j++;
      else break;
    }
    return j;
  };
  while (i < query.length) {
    const c = query[i]!;
    if (WHITESPACE.has(c)) {
      i++;
      continue;
    }
    const start = i;
    if (afterCarat) {
      afterCarat = false;
      if (isDigit(c)) {
        while (isDigit(query[i])) i++;
        if (query[i] === '.' && isDigit(query[i + 1])) {
          i++;
          while (isDigit(query[i])) i++;
        }
        push('NUMBER', start, i);
        continue;
      }
    }
    if (inRange) {
      if (c === ']' || c === '}') {
        inRange = false;
        push('RANGE_END', start, ++i);
      } else if (c === '"') {
        i = quotedEnd(query, i);
        push('QUOTED', start, i);
      } else {
        while (i < query.length && !WHITESPACE.has(query[i]!) && query[i] !== ']' && query[i] !== '}') i++;
        push(query.slice(start, i) === 'TO' ? 'RANGE_TO' : 'RANGE_GOOP', start, i);
      }
      continue;
    }
    if (query.startsWith('&&', i) || query.startsWith('||', i)) {
      push(c === '&' ? 'AND' : 'OR', start, (i += 2));
      continue;
    }
    if ((c === '+' || c === '-' || c === '!') && i + 1 < query.length && WHITESPACE.has(query[i + 1]!)) {
      push('BAREOPER', start, ++i);
      continue;
    }
    const single = SINGLE[c];
    if (single !== undefined) {
      push(single, start, ++i);
      if (c === '^') afterCarat = true;
      continue;
    }
    if (c === '"') {
      i = quotedEnd(query, i);
      push('QUOTED', start, i);
      continue;
    }
    if (c === '[' || c === '{') {
      inRange = true;
      push('RANGE_START', start, ++i);
      continue;
    }
    if (c === '/') {
      let j = i + 1;
      while (j < query.length && query[j] !== '/') j += query[j] === '\\' && query[j + 1] === '/' ? 2 : 1;
      if (j >= query.length) throw luceneSyntaxError(query, `Lexical error at line 1, column ${query.length}.  Encountered: <EOF> after : "${query.slice(i)}"`);
      i = j + 1;
      push('REGEXP', start, i);
      continue;
    }
    if (c === '~') {
      // Lucene's FUZZY_SLOP: ~ then digits (with a decimal part) or nothing, then any term characters.
      i++;
      if (isDigit(query[i])) {
        while (isDigit(query[i])) i++;
        if (query[i] === '.' && isDigit(query[i + 1])) {
          i++;
          while (isDigit(query[i])) i++;
        }
      }
      i = termRun(i, false);
      push('FUZZY_SLOP', start, i);
      continue;
    }
    if (isTermStart(c) || c === '\\' || c === '*' || c === '?') {
      const plainEnd = c === '*' || c === '?' ? i : termRun(i, false);
      const wildEnd = termRun(i, true);
      if (wildEnd > plainEnd) {
        const body = query.slice(i, wildEnd);
        i = wildEnd;
        // `*` alone is the STAR token; term characters then one trailing `*` are a prefix.
        if (body === '*') push('STAR', start, i);
        else if (body.endsWith('*') && !/(^|[^\\])[*?]/.test(body.slice(0, -1)) && !body.endsWith('\\*') && c !== '*' && c !== '?') push('PREFIX', start, i);
        else push('WILD', start, i);
      } else {
        i = plainEnd;
        const word = query.slice(start, i);
        push(word === 'AND' ? 'AND' : word === 'OR' ? 'OR' : word === 'NOT' ? 'NOT' : 'TERM', start, i);
      }
      continue;
    }
    // Only `]`, `}` outside a range are left: Lucene's lexer has no token for them.
    throw luceneSyntaxError(query, `Lexical error at line 1, column ${i + 1}.  Encountered: "${c}" after : ""`);
  }
  tokens.push({ kind: 'EOF', text: '', offset: query.length });
  return tokens;
}

/** The end of a quoted string starting at `from` (its opening quote); an unterminated one is a lexical error. */
function quotedEnd(query: string, from: number): number {
  let j = from + 1;
  while (j < query.length && query[j] !== '"') j += query[j] === '\\' ? 2 : 1;
  if (j >= query.length) throw luceneSyntaxError(query, `Lexical error at line 1, column ${query.length}.  Encountered: <EOF> after : "${query.slice(from)}"`);
  return j + 1;
}
