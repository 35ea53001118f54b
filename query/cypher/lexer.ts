import { compileError, type Position } from './errors.js';

export type TokenKind = 'ident' | 'int' | 'float' | 'string' | 'param' | 'op' | 'eof';

/** Dashes and minus signs other than '-', which text pasted from documents brings along. */
const UNICODE_DASHES = /[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/;

/** The largest integer literal the lexer takes: 2^63, which only a minus in front makes an INTEGER. */
export const MAX_INT64_LITERAL = 2n ** 63n;

export interface Token extends Position {
  kind: TokenKind;
  /** The source text of the token. */
  text: string;
  /** Identifiers: the name (backquotes removed); strings: the unescaped value; params: the name. */
  value: string;
  /** Numbers: the value. */
  num: number;
  /** Integers beyond ±(2^53-1): the exact value (num is then the nearest double). */
  big?: bigint;
  /** An identifier written in backquotes never reads as a keyword. */
  quoted: boolean;
  /** Where the token starts and ends in the text (for column names taken from the query). */
  offset: number;
  end: number;
}

/** Longest first, so `<->` wins over `<` and `<=` over `<`. */
const OPERATORS = ['<->', '..', '<>', '!=', '<=', '>=', '=~', '+=', '->', '<-', '||', '::', '(', ')', '[', ']', '{', '}', ',', '.', ':', '|', ';', '=', '<', '>', '+', '-', '*', '/', '%', '^', '$', '!', '&'];

const isIdentStart = (ch: string) => /[\p{L}_]/u.test(ch);
const isIdentPart = (ch: string) => /[\p{L}\p{N}_]/u.test(ch);
const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';

const ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Splits query text into tokens with positions; comments and whitespace are dropped. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (at: number): Position => ({ line, column: at - lineStart + 1 });
  const advanceTo = (end: number) => {
    for (; i < end; i++) {
      if (text[i] === '\n') {
        line++;
        lineStart = i + 1;
      }
    }
  };
  const push = (kind: TokenKind, start: number, value: string, num = 0, quoted = false) => {
    tokens.push({ kind, text: text.slice(start, i), value, num, quoted, offset: start, end: i, ...pos(start) });
  };

  while (i < text.length) {
    const ch = text[i]!;
    const start = i;
    if (/\s/.test(ch)) {
      advanceTo(i + 1);
      continue;
    }
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      advanceTo(end < 0 ? text.length : end);
      continue;
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw compileError('UnexpectedSyntax', 'the comment that starts here is never closed (*/)', pos(i));
      advanceTo(end + 2);
      continue;
    }
    if (isIdentStart(ch)) {
      while (i < text.length && isIdentPart(text[i]!)) i++;
      push('ident', start, text.slice(start, i));
      continue;
    }
    if (ch === '`') {
      let name = '';
      i++;
      for (;;) {
        if (i >= text.length) throw compileError('UnexpectedSyntax', 'the backquoted name that starts here is never closed', pos(start));
        if (text[i] === '`') {
          if (text[i + 1] === '`') {
            name += '`';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        name += text[i++];
      }
      const p = pos(start);
      advanceTo(i);
      tokens.push({ kind: 'ident', text: text.slice(start, i), value: name, num: 0, quoted: true, offset: start, end: i, ...p });
      continue;
    }
    if (isDigit(ch) || (ch === '.' && isDigit(text[i + 1]))) {
      if (startsMapKey(tokens, text, i)) throw compileError('UnexpectedSyntax', `${JSON.stringify(/^[\p{L}\p{N}_]*/u.exec(text.slice(i))![0])} cannot be a map key: a key starts with a letter or _ (or is written in backquotes)`, pos(start));
      i = scanNumber(text, i, pos(start));
      const raw = text.slice(start, i);
      const radix = raw.startsWith('0x') ? 16 : raw.startsWith('0o') ? 8 : 10;
      const isFloat = radix === 10 && /[.eE]/.test(raw);
      const num = radix === 10 ? Number(raw) : parseInt(raw.slice(2), radix);
      if (isFloat && !Number.isFinite(num)) throw compileError('FloatingPointOverflow', `the number ${raw} is too large for a 64-bit float`, pos(start));
      push(isFloat ? 'float' : 'int', start, raw, num);
      if (!isFloat && !Number.isSafeInteger(num)) {
        const big = BigInt(raw);
        // 2^63 itself is let through for `-9223372036854775808`; the binder refuses it unnegated.
        if (big > MAX_INT64_LITERAL) throw compileError('IntegerOverflow', `the integer ${raw} is outside the 64-bit range`, pos(start));
        tokens[tokens.length - 1]!.big = big;
      }
      continue;
    }
    if (ch === "'" || ch === '"') {
      const p = pos(start);
      const value = scanString(text, start, p);
      i = value.end;
      tokens.push({ kind: 'string', text: text.slice(start, i), value: value.text, num: 0, quoted: false, offset: start, end: i, ...p });
      advanceTo(i);
      continue;
    }
    if (ch === '$') {
      i++;
      let name: string;
      if (text[i] === '`') {
        const end = text.indexOf('`', i + 1);
        if (end < 0) throw compileError('UnexpectedSyntax', 'the backquoted parameter name is never closed', pos(start));
        name = text.slice(i + 1, end);
        i = end + 1;
      } else {
        const from = i;
        while (i < text.length && isIdentPart(text[i]!)) i++;
        name = text.slice(from, i);
        if (name === '') throw compileError('UnexpectedSyntax', 'expected a parameter name after $', pos(start));
      }
      push('param', start, name);
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op && UNICODE_DASHES.test(ch)) throw compileError('InvalidUnicodeCharacter', `${JSON.stringify(ch)} looks like a minus but is not one: write - (U+002D)`, pos(start));
    if (!op) throw compileError('UnexpectedSyntax', `unexpected character ${JSON.stringify(ch)}`, pos(start));
    i += op.length;
    push('op', start, op);
  }
  tokens.push({ kind: 'eof', text: '', value: '', num: 0, quoted: false, offset: i, end: i, ...pos(i) });
  return tokens;
}

/** Whether the digits at `i` stand where a map literal's key goes: after `{` or `,`, as a name followed by `:`. */
function startsMapKey(tokens: readonly Token[], text: string, i: number): boolean {
  const before = tokens[tokens.length - 1];
  if (!before || before.kind !== 'op' || (before.value !== '{' && before.value !== ',')) return false;
  return /^[\p{L}\p{N}_]+\s*:(?!:)/u.test(text.slice(i, i + 256));
}

function scanNumber(text: string, i: number, p: Position): number {
  const start = i;
  if (text.startsWith('0x', i) || text.startsWith('0o', i)) {
    const digits = text[i + 1] === 'x' ? /[0-9a-fA-F]/ : /[0-7]/;
    i += 2;
    while (i < text.length && digits.test(text[i]!)) i++;
    if (i === start + 2 || (i < text.length && /[\p{L}\p{N}_]/u.test(text[i]!))) throw compileError('InvalidNumberLiteral', `${JSON.stringify(text.slice(start, i + 1))} is not a number`, p);
    return i;
  }
  while (isDigit(text[i])) i++;
  // `1..3` is a range in a variable-length pattern, not the float `1.`.
  if (text[i] === '.' && isDigit(text[i + 1])) {
    i++;
    while (isDigit(text[i])) i++;
  }
  if ((text[i] === 'e' || text[i] === 'E') && (isDigit(text[i + 1]) || ((text[i + 1] === '-' || text[i + 1] === '+') && isDigit(text[i + 2])))) {
    i += 2;
    while (isDigit(text[i])) i++;
  }
  if (i < text.length && /[\p{L}_]/u.test(text[i]!)) {
    throw compileError('InvalidNumberLiteral', `${JSON.stringify(text.slice(start, i + 1))} is not a number`, p);
  }
  return i;
}

function scanString(text: string, start: number, p: Position): { text: string; end: number } {
  const quote = text[start]!;
  let out = '';
  let i = start + 1;
  for (;;) {
    if (i >= text.length) throw compileError('UnexpectedSyntax', 'the string that starts here is never closed', p);
    const ch = text[i]!;
    if (ch === quote) return { text: out, end: i + 1 };
    if (ch !== '\\') {
      out += ch;
      i++;
      continue;
    }
    const esc = text[i + 1];
    if (esc !== undefined && ESCAPES[esc] !== undefined) {
      out += ESCAPES[esc];
      i += 2;
    } else if (esc === 'u' || esc === 'U') {
      const len = esc === 'u' ? 4 : 8;
      const hex = text.slice(i + 2, i + 2 + len);
      if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) throw compileError('InvalidUnicodeLiteral', `\\${esc} must be followed by ${len} hexadecimal digits`, p);
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) throw compileError('InvalidUnicodeLiteral', `\\${esc}${hex} is not a Unicode code point`, p);
      out += String.fromCodePoint(code);
      i += 2 + len;
    } else {
      throw compileError('UnexpectedSyntax', `unknown escape \\${esc ?? ''} in a string`, p);
    }
  }
}
