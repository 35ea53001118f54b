import { javaStringFormat } from '../apoc-functions.js';
import type { FunctionDef } from '../functions.js';
import { float } from '../numbers.js';
import { javaRegex } from '../regex.js';
import type { Value } from '../values.js';
import { apocFunction, given, integerArg, listArg, stringArg } from './args.js';

/** The apoc.text functions, as APOC 5 computes them (lengths and indexes in UTF-16 units, as Java's). */

/** A Java pattern that finds matches anywhere (javaRegex anchors a whole-string match; its body is inside `^(?:` … `)$`). */
function findAll(pattern: string): RegExp {
  const whole = javaRegex(pattern);
  return new RegExp(whole.source.slice(4, -2), whole.flags + 'g');
}

/** Java's replaceAll: `$n` and `${name}` insert a group, a backslash takes the next character as it is. */
function javaReplaceAll(text: string, pattern: string, replacement: string): string {
  return text.replace(findAll(pattern), (...m: unknown[]) => {
    const groups = (typeof m[m.length - 1] === 'object' ? m[m.length - 1] : {}) as Record<string, string | undefined>;
    return replacement.replace(/\\(.)|\$(\d+)|\$\{(\w+)\}/g, (_all, escaped: string | undefined, index: string | undefined, name: string | undefined) => {
      if (escaped !== undefined) return escaped;
      if (index !== undefined) return (m[Number(index)] as string | undefined) ?? '';
      return groups[name!] ?? '';
    });
  });
}

/** Java's String.split(regex, limit): no leading empty part from a match at 0; trailing empty parts dropped when limit is 0. */
function javaSplit(text: string, pattern: string, limit: number): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const m of text.matchAll(findAll(pattern))) {
    if (limit > 0 && parts.length === limit - 1) break;
    if (m[0] === '' && (m.index === 0 || m.index === text.length)) continue;
    parts.push(text.slice(from, m.index));
    from = m.index + m[0].length;
  }
  parts.push(text.slice(from));
  if (limit === 0) while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (limit === 0 && parts.length === 1 && parts[0] === '' && text !== '') return [];
  return parts;
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * Jaro-Winkler similarity as Apache commons-text computes it (matches within half the longer
 * length, half-transpositions, a common prefix of up to 4 weighted 0.1 once Jaro reaches 0.7).
 */
function jaroWinkler(left: string, right: string): number {
  if (left === right) return 1;
  const [longer, shorter] = left.length > right.length ? [left, right] : [right, left];
  const range = Math.max(Math.floor(longer.length / 2) - 1, 0);
  const matchedAt = new Array<number>(shorter.length).fill(-1);
  const taken = new Array<boolean>(longer.length).fill(false);
  let matches = 0;
  for (let i = 0; i < shorter.length; i++) {
    for (let j = Math.max(i - range, 0); j < Math.min(i + range + 1, longer.length); j++) {
      if (!taken[j] && shorter[i] === longer[j]) {
        matchedAt[i] = j;
        taken[j] = true;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  const fromShorter = [...shorter].filter((_, i) => matchedAt[i] !== -1);
  const fromLonger = [...longer].filter((_, j) => taken[j]);
  const halfTranspositions = fromShorter.filter((c, i) => c !== fromLonger[i]).length;
  let prefix = 0;
  while (prefix < Math.min(4, shorter.length) && left[prefix] === right[prefix]) prefix++;
  const jaro = (matches / left.length + matches / right.length + (matches - halfTranspositions / 2) / matches) / 3;
  return jaro < 0.7 ? jaro : jaro + 0.1 * prefix * (1 - jaro);
}

/** The Sørensen–Dice coefficient as APOC computes it: over the sorted character pairs of each upper-cased word. */
function sorensenDice(a: string, b: string, languageTag: string): number {
  if (a === b) return 1;
  const upper = (t: string) => {
    try {
      return t.trim().toLocaleUpperCase(languageTag);
    } catch {
      return t.trim().toUpperCase();
    }
  };
  const words = (t: string) => upper(t).split(/\s+/);
  const [w1, w2] = [words(a), words(b)];
  if (w1.length === w2.length && w1.every((w, i) => w === w2[i])) return 1;
  const bigrams = (ws: string[]) => ws.flatMap((w) => Array.from({ length: Math.max(w.length - 1, 0) }, (_, i) => w.slice(i, i + 2))).sort();
  const [b1, b2] = [bigrams(w1), bigrams(w2)];
  let matches = 0;
  for (let i = 0, j = 0; i < b1.length && j < b2.length; ) {
    if (b1[i] === b2[j]) {
      matches++;
      i++;
      j++;
    } else if (b1[i]! < b2[j]!) i++;
    else j++;
  }
  return (2 * matches) / (b1.length + b2.length);
}

const UMLAUTS: [RegExp, string][] = [[/Ä/g, 'Ae'], [/Ü/g, 'Ue'], [/Ö/g, 'Oe'], [/ä/g, 'ae'], [/ü/g, 'ue'], [/ö/g, 'oe'], [/ß/g, 'ss']];

/** apoc.text.clean: umlauts spelled out, accents dropped, then only letters and digits, in lower case. */
function clean(text: string): string {
  let s = text;
  for (const [from, to] of UMLAUTS) s = s.replace(from, to);
  return s.normalize('NFD').replace(/\p{M}+/gu, '').replace(/[^\p{L}\p{N}]+/gu, '').toLowerCase();
}

const capitalize = (s: string) => s.slice(0, 1).toUpperCase() + s.slice(1);
const decapitalize = (s: string) => s.slice(0, 1).toLowerCase() + s.slice(1);

function camelCase(text: string): string {
  const out = text.replace(/[^\p{L}0-9]|_/gu, ' ').split(/\s+/).map((part) => capitalize(part.toLowerCase())).join('');
  return decapitalize(out);
}

/** APOC's snakeCase joins the words with '-' (its documented output: 'test Snake Case' gives 'test-snake-case'). */
function snakeCase(text: string): string {
  const s = /^[\p{Lu}0-9_]+$/u.test(text) ? text.toLowerCase().replaceAll('_', ' ') : text;
  const parts = s.split(/(?=[^\p{Ll}0-9])/u).map((p) => p.trim()).filter((p) => p !== '');
  return parts.join('-').toLowerCase().replaceAll('--', '-');
}

function pad(text: string, count: number, delimiter: string, left: boolean): string {
  if (text.length >= count) return text;
  const fill = (delimiter[0] ?? ' ').repeat(count - text.length);
  return left ? fill + text : text + fill;
}

/** A function of strings that answers null when its text is null (APOC's functions that check for it). */
const onText = (display: string, minArgs: number, maxArgs: number, f: (text: string, rest: Value[], fail: (m: string) => Error) => Value) =>
  apocFunction(display, minArgs, maxArgs, ([text, ...rest], fail) => (given(text) ? f(stringArg(text, fail), rest, fail) : null));

const similarity = (display: string, f: (a: string, b: string) => Value) =>
  apocFunction(display, 2, 2, ([a, b], fail) => (given(a) && given(b) ? f(stringArg(a, fail), stringArg(b, fail)) : null));

function indexOf(text: string, [lookup, from, to]: Value[], fail: (m: string) => Error): Value {
  if (!given(lookup)) return -1;
  const l = stringArg(lookup, fail);
  const start = given(from) ? integerArg(from, fail) : 0;
  const end = given(to) ? integerArg(to, fail) : -1;
  if (end === -1 || end > text.length) return text.indexOf(l, start);
  if (end <= start) return -1;
  return text.slice(0, end).indexOf(l, start);
}

function indexesOf(text: string, [lookup, from, to]: Value[], fail: (m: string) => Error): Value {
  if (!given(lookup)) return [];
  const l = stringArg(lookup, fail);
  const end = given(to) && integerArg(to, fail) !== -1 ? integerArg(to, fail) : text.length;
  const out: number[] = [];
  for (let i = text.indexOf(l, given(from) ? integerArg(from, fail) : 0); i !== -1 && i < end; i = text.indexOf(l, i + 1)) out.push(i);
  return out;
}

const replace = (text: string, [regex, replacement]: Value[], fail: (m: string) => Error): Value =>
  given(regex) && given(replacement) ? javaReplaceAll(text, stringArg(regex, fail), stringArg(replacement, fail)) : null;

export const APOC_TEXT_FUNCTIONS: Record<string, FunctionDef> = Object.fromEntries([
  apocFunction('apoc.text.join', 2, 2, ([l, d], fail) => (given(l) && given(d) ? listArg(l, fail).map((x) => stringArg(x, fail)).join(stringArg(d, fail)) : null)),
  onText('apoc.text.replace', 3, 3, replace),
  onText('apoc.text.regreplace', 3, 3, replace),
  onText('apoc.text.split', 2, 3, (text, [regex, limit], fail) => (given(regex) ? javaSplit(text, stringArg(regex, fail), given(limit) ? integerArg(limit, fail) : 0) : null)),
  onText('apoc.text.capitalize', 1, 1, capitalize),
  onText('apoc.text.capitalizeAll', 1, 1, (text) => text.split(' ').map(capitalize).join(' ').trim()),
  onText('apoc.text.decapitalize', 1, 1, decapitalize),
  onText('apoc.text.decapitalizeAll', 1, 1, (text) => text.split(' ').map(decapitalize).join(' ').trim()),
  onText('apoc.text.camelCase', 1, 1, camelCase),
  onText('apoc.text.upperCamelCase', 1, 1, (text) => capitalize(camelCase(text))),
  onText('apoc.text.snakeCase', 1, 1, snakeCase),
  onText('apoc.text.clean', 1, 1, clean),
  apocFunction('apoc.text.compareCleaned', 2, 2, ([a, b], fail) => given(a) && given(b) && clean(stringArg(a, fail)) === clean(stringArg(b, fail))),
  similarity('apoc.text.levenshteinDistance', levenshtein),
  similarity('apoc.text.distance', levenshtein),
  similarity('apoc.text.levenshteinSimilarity', (a, b) => {
    const longer = Math.max(a.length, b.length);
    return float(longer === 0 ? 1 : (longer - levenshtein(a, b)) / longer);
  }),
  similarity('apoc.text.jaroWinklerDistance', (a, b) => float(1 - jaroWinkler(a, b))),
  apocFunction('apoc.text.sorensenDiceSimilarity', 2, 3, ([a, b, tag], fail) =>
    given(a) && given(b) && tag !== null ? float(sorensenDice(stringArg(a, fail), stringArg(b, fail), tag === undefined ? 'en' : stringArg(tag, fail))) : null,
  ),
  onText('apoc.text.lpad', 2, 3, (text, [count, d], fail) => pad(text, integerArg(count ?? null, fail), given(d) ? stringArg(d, fail) : ' ', true)),
  onText('apoc.text.rpad', 2, 3, (text, [count, d], fail) => pad(text, integerArg(count ?? null, fail), given(d) ? stringArg(d, fail) : ' ', false)),
  onText('apoc.text.format', 2, 3, (text, [params], fail) => (given(params) ? javaStringFormat(text, listArg(params, fail), fail) : text)),
  onText('apoc.text.slug', 1, 2, (text, [d], fail) => {
    const delimiter = d === undefined ? '-' : d;
    return delimiter === null ? null : text.trim().replace(/[^\p{L}0-9_]+/gu, stringArg(delimiter, fail));
  }),
  onText('apoc.text.indexOf', 2, 4, indexOf),
  onText('apoc.text.indexesOf', 2, 4, indexesOf),
  apocFunction('apoc.text.repeat', 2, 2, ([item, count], fail) => (given(item) ? stringArg(item, fail).repeat(Math.max(0, integerArg(count ?? null, fail))) : null)),
]);
