import type { FieldIndex } from '../../storage/events/types.js';
import { textTokens } from '../../storage/text-tokens.js';
import type { Condition } from './types.js';

type TextCondition = Extract<Condition, { kind: 'match_text' }>;

/** Whether the field's declared index is a text index: a full-text match then reads words, else substrings (Qdrant). */
export const isTextIndex = (index: FieldIndex | undefined): index is FieldIndex => index?.type === 'text';

/** Whether a text index keeps word positions, which a phrase match needs (Qdrant's phrase_matching). */
export const keepsPhrases = (index: FieldIndex): boolean => index.params.phrase_matching === true;

/** Whether `phrase` occurs in `words` as a run of adjacent words in order. */
function hasRun(words: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0) return false;
  for (let i = 0; i + phrase.length <= words.length; i++) {
    if (phrase.every((w, k) => words[i + k] === w)) return true;
  }
  return false;
}

/**
 * Whether a string value satisfies a full-text match, as Qdrant answers it. With a text index
 * on the field, by words (lowercase runs of letters and digits): `text` every word of the
 * query, `text_any` one at least, `phrase` all of them adjacent and in order, and only when
 * the index keeps positions (`phrase_matching: true`; without it Qdrant's phrase match finds
 * nothing); a query with no words matches nothing. Without one, by substrings, case and all:
 * `text` and `phrase` the whole query, `text_any` one of its whitespace-separated parts.
 */
export function textHolds(c: TextCondition, value: string, index: FieldIndex | undefined): boolean {
  if (isTextIndex(index)) {
    if (c.tokens.length === 0) return false;
    const words = textTokens(value);
    if (c.mode === 'phrase') return keepsPhrases(index) && hasRun(words, c.tokens);
    const have = new Set(words);
    return c.mode === 'text' ? c.tokens.every((t) => have.has(t)) : c.tokens.some((t) => have.has(t));
  }
  if (c.mode !== 'text_any') return value.includes(c.text);
  return c.text.split(/\s+/u).some((part) => part.length > 0 && value.includes(part));
}
