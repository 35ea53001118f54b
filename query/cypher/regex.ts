import { runtimeError } from './errors.js';

/**
 * `s =~ pattern` speaks Java's regular expressions, as Neo4j runs them (java.util.regex, the
 * whole string must match). A pattern is translated to a JS RegExp of the same meaning: inline
 * flags at the start ((?i), (?s), (?m), (?x), together as (?ims)) and later (?s), (?m), (?x)
 * and their scoped groups (?s:...) become explicit classes and anchors, so `.` stops at line
 * terminators unless (?s) says otherwise; \Q...\E, \A, \z, \Z, \e, \h, \R and Java's escapes of
 * any punctuation work as in Java. What JS cannot express is refused by name: a case flag after
 * the start, possessive quantifiers, atomic groups and nested character classes.
 */

interface Flags {
  i: boolean;
  s: boolean;
  m: boolean;
  x: boolean;
}

/** Java's line terminators (what `.` does not match without (?s)). */
const TERMINATORS = '\\n\\r\\u0085\\u2028\\u2029';
const ANYTHING = '[\\s\\S]';
const START = `(?<!${ANYTHING})`;
const END = `(?!${ANYTHING})`;
/** The characters that keep their backslash in a JS pattern with the u flag. */
const JS_SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);
const JAVA_WHITESPACE = new Set([' ', '\t', '\n', '\x0B', '\f', '\r']);
/** Java's POSIX classes (US-ASCII), as the inside of a JS class. */
const POSIX: Record<string, string> = {
  Lower: 'a-z',
  Upper: 'A-Z',
  ASCII: '\\x00-\\x7F',
  Alpha: 'a-zA-Z',
  Digit: '0-9',
  Alnum: 'a-zA-Z0-9',
  Punct: '!-\\/:-@\\[-`{-~',
  Graph: '!-~',
  Print: ' -~',
  Blank: ' \\t',
  Cntrl: '\\x00-\\x1F\\x7F',
  XDigit: '0-9a-fA-F',
  Space: ' \\t\\n\\x0B\\f\\r',
};
/** Escapes Java has and JS lacks (or means otherwise), as JS pattern text. */
const ESCAPES: Record<string, string> = {
  A: START,
  z: END,
  Z: `(?=(?:\\r\\n|[${TERMINATORS}])?${END})`,
  e: '\\x1B',
  a: '\\x07',
  h: '[ \\t\\xA0\\u1680\\u180E\\u2000-\\u200A\\u202F\\u205F\\u3000]',
  H: '[^ \\t\\xA0\\u1680\\u180E\\u2000-\\u200A\\u202F\\u205F\\u3000]',
  v: '[\\n\\x0B\\f\\r\\x85\\u2028\\u2029]',
  V: '[^\\n\\x0B\\f\\r\\x85\\u2028\\u2029]',
  R: '(?:\\r\\n|[\\n\\x0B\\f\\r\\x85\\u2028\\u2029])',
};

/** A construct JS cannot express: what it is, and what to write instead. */
class Unsupported extends Error {
  constructor(what: string, readonly hint = '') {
    super(what);
  }
}

class Translator {
  private at = 0;
  private out = '';
  private flags: Flags = { i: false, s: false, m: false, x: false };
  private readonly scopes: Flags[] = [];
  /** Whether the last token was a quantifier (so `+` after it would make it possessive). */
  private quantified = false;
  readonly caseInsensitive: boolean;

  constructor(private readonly p: string) {
    // Flags at the very start hold for the whole pattern: the case flag becomes the RegExp's.
    for (let m = flagGroup(p, 0); m && m.close === ')'; m = flagGroup(p, this.at)) {
      this.flags = this.withFlags(m.on, m.off);
      this.at += m.length;
    }
    this.caseInsensitive = this.flags.i;
  }

  translate(): string {
    const { p } = this;
    while (this.at < p.length) {
      const c = p[this.at]!;
      if (this.flags.x && this.skipComment()) continue;
      if (c === '\\') this.escape(false);
      else if (c === '[') this.characterClass();
      else if (c === '(') this.group();
      else if (c === ')') {
        this.flags = this.scopes.pop() ?? this.flags;
        this.emit(')');
      } else if (c === '*' || c === '+' || c === '?') this.quantifier(c);
      else if (c === '{' && /^\{\d+(,\d*)?\}/.test(p.slice(this.at))) {
        const end = p.indexOf('}', this.at) + 1;
        this.out += p.slice(this.at, end);
        this.at = end;
        this.quantified = true;
      } else if (c === '.') this.emit(this.flags.s ? ANYTHING : `[^${TERMINATORS}]`);
      else if (c === '^') this.emit(this.flags.m ? `(?<![^${TERMINATORS}])` : START);
      else if (c === '$') this.emit(this.flags.m ? `(?=[${TERMINATORS}]|${END})` : ESCAPES.Z!);
      else if (c === '}' || c === ']') this.emit('\\' + c);
      else this.emit(this.codePoint());
    }
    return this.out;
  }

  private emit(text: string, advance = 1): void {
    this.out += text;
    this.at += advance;
    this.quantified = false;
  }

  /** The code point at the cursor, as text, the cursor moved past it. */
  private codePoint(): string {
    const c = String.fromCodePoint(this.p.codePointAt(this.at)!);
    this.at += c.length - 1;
    return c;
  }

  /** In (?x) mode: whitespace and `#` comments are not part of the pattern. */
  private skipComment(): boolean {
    const c = this.p[this.at]!;
    if (JAVA_WHITESPACE.has(c)) {
      this.at++;
      return true;
    }
    if (c !== '#') return false;
    const eol = this.p.indexOf('\n', this.at);
    this.at = eol < 0 ? this.p.length : eol + 1;
    return true;
  }

  private withFlags(on: string, off: string): Flags {
    for (const f of on + off) if (f === 'd' || f === 'U') throw new Unsupported(`the inline flag (?${f}) (${f === 'd' ? 'UNIX_LINES' : 'UNICODE_CHARACTER_CLASS'})`);
    const next = { ...this.flags };
    for (const f of on) if (f in next) next[f as keyof Flags] = true;
    for (const f of off) if (f in next) next[f as keyof Flags] = false;
    return next;
  }

  private quantifier(c: string): void {
    if (this.quantified && c === '+') throw new Unsupported('a possessive quantifier (*+, ++, ?+, {n}+)', 'write it without the final +');
    if (this.quantified && c === '?') {
      this.emit('?');
      return;
    }
    this.emit(c);
    this.quantified = true;
  }

  private group(): void {
    const { p } = this;
    const m = flagGroup(p, this.at);
    if (m && (m.on !== '' || m.off !== '' || m.close === ')')) {
      const next = this.withFlags(m.on, m.off);
      if (next.i !== this.caseInsensitive) {
        throw new Unsupported(`the case flag (?${m.off.includes('i') ? '-' : ''}i) after the start of the pattern`, "put (?i) at the very start, where it applies to the whole pattern, or spell both cases out ([Aa])");
      }
      this.at += m.length;
      if (m.close === ')') this.flags = next;
      else {
        this.scopes.push(this.flags);
        this.flags = next;
        this.out += '(?:';
      }
      this.quantified = false;
      return;
    }
    if (p.startsWith('(?>', this.at)) throw new Unsupported('an atomic group (?>...)', 'use a plain group (?:...)');
    this.scopes.push(this.flags);
    const prefix = /^\((?:\?(?:<[=!]|[:=!]|<[A-Za-z][A-Za-z0-9]*>))?/.exec(p.slice(this.at))![0];
    this.emit(prefix, prefix.length);
  }

  /** A backslash escape at the cursor, in a character class or not. */
  private escape(inClass: boolean): void {
    const { p } = this;
    const n = p[this.at + 1];
    if (n === undefined) throw new Error('\\ at end of pattern');
    if (n === 'Q') {
      const end = p.indexOf('\\E', this.at + 2);
      const text = p.slice(this.at + 2, end < 0 ? p.length : end);
      this.out += [...text].map((ch) => (JS_SYNTAX.has(ch) || ch === '-' ? '\\' + ch : ch)).join('');
      this.at = end < 0 ? p.length : end + 2;
      this.quantified = false;
      return;
    }
    if ((n === 'p' || n === 'P') && p[this.at + 2] === '{') {
      const close = p.indexOf('}', this.at);
      const name = p.slice(this.at + 3, close < 0 ? p.length : close);
      const posix = POSIX[name.startsWith('Is') ? name.slice(2) : name];
      if (posix !== undefined && close > 0) {
        if (inClass && n === 'P') throw new Unsupported(`\\P{${name}} inside a character class`, `use [^...] around \\p{${name}}`);
        return this.emit(inClass ? posix : `[${n === 'P' ? '^' : ''}${posix}]`, close + 1 - this.at);
      }
    }
    if ((n === 'p' || n === 'P') && /[A-Z]/.test(p[this.at + 2] ?? '')) return this.emit(`\\${n}{${p[this.at + 2]}}`, 3);
    if (n === 'x' && p[this.at + 2] === '{') {
      const close = p.indexOf('}', this.at);
      return this.emit('\\u' + p.slice(this.at + 2, close < 0 ? p.length : close + 1), (close < 0 ? p.length : close + 1) - this.at);
    }
    if (n === '0') {
      const digits = /^[0-7]{1,3}/.exec(p.slice(this.at + 2))?.[0] ?? '';
      const octal = digits.length === 3 && digits[0]! > '3' ? digits.slice(0, 2) : digits;
      return this.emit(`\\u{${parseInt(octal || '0', 8).toString(16)}}`, 2 + octal.length);
    }
    const replacement = ESCAPES[n];
    if (replacement !== undefined && !(inClass && replacement.startsWith('('))) {
      return this.emit(inClass && replacement.startsWith('[') ? replacement.slice(1, -1) : replacement, 2);
    }
    if (/[A-Za-z0-9]/.test(n)) return this.emit('\\' + n, 2);
    // Java lets a backslash quote any punctuation; JS (u flag) only its own syntax characters.
    this.at++;
    const ch = this.codePoint();
    this.emit(JS_SYNTAX.has(ch) || (inClass && ch === '-') ? '\\' + ch : ch);
  }

  private characterClass(): void {
    const { p } = this;
    this.out += '[';
    this.at++;
    if (p[this.at] === '^') this.out += p[this.at++];
    if (p[this.at] === ']') {
      this.out += '\\]';
      this.at++;
    }
    while (this.at < p.length) {
      if (this.flags.x && this.skipComment()) continue;
      const c = p[this.at]!;
      if (c === ']') return this.emit(']');
      if (c === '[') throw new Unsupported('a character class inside a character class (a union such as [a-c[x-z]])', 'list the characters in one class, [a-cx-z]');
      if (p.startsWith('&&', this.at)) throw new Unsupported('a character class intersection (&&)', 'spell out the characters the intersection leaves');
      if (c === '\\') this.escape(true);
      else this.emit(this.codePoint());
    }
  }
}

interface FlagGroup {
  on: string;
  off: string;
  close: ':' | ')';
  length: number;
}

/** `(?flags)` or `(?flags:` at `at`, or null. */
function flagGroup(p: string, at: number): FlagGroup | null {
  const m = /^\(\?([idmsuxU]*)(?:-([idmsuxU]*))?([:)])/.exec(p.slice(at, at + 24));
  return m ? { on: m[1]!, off: m[2] ?? '', close: m[3] as ':' | ')', length: m[0].length } : null;
}

const CACHE_SIZE = 256;
const cache = new Map<string, RegExp>();

/** The JS RegExp that matches a whole string as Java's `pattern` would (cached: =~ runs per row). */
export function javaRegex(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let regex: RegExp;
  try {
    const t = new Translator(pattern);
    const body = t.translate();
    regex = new RegExp(`^(?:${body})$`, t.caseInsensitive ? 'iu' : 'u');
  } catch (err) {
    if (err instanceof Unsupported) {
      throw runtimeError('ArgumentError', 'InvalidArgumentValue', `the regular expression ${JSON.stringify(pattern)} uses ${err.message}, which this server cannot run${err.hint ? `: ${err.hint}` : ''}`);
    }
    // The JS message names the translated pattern; only its reason is the user's business.
    const reason = /^Invalid regular expression: \/[\s\S]*\/[a-z]*: ([^\n]*)$/.exec((err as Error).message)?.[1] ?? (err as Error).message;
    throw runtimeError('ArgumentError', 'InvalidArgumentValue', `invalid regular expression ${JSON.stringify(pattern)}: ${reason.toLowerCase()}`);
  }
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(pattern, regex);
  return regex;
}
