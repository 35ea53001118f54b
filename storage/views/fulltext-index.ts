import type { Payload, PointId } from '../events/types.js';
import { textTokens } from '../text-tokens.js';
import { LIVE_SHARD_LIMIT, ShardedMap } from './sharded.js';

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * The tokens of a node's fields for a full-text index over `properties`: each string or
 * list-of-strings property analysed as the index analyses text (the payload text index's tokens:
 * lower-case runs of letters and digits, no stop words, like Neo4j's default
 * 'standard-no-stop-words' analyzer on plain words). A list's strings are values of one field,
 * their tokens following each other (no position gap, as Lucene's standard analyzer adds none).
 * Null when the node has none of them: it is not in the index.
 */
export function fieldTokens(payload: Payload, properties: readonly string[]): Map<string, string[]> | null {
  let fields: Map<string, string[]> | null = null;
  for (const key of properties) {
    const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
    if (typeof value === 'string') (fields ??= new Map()).set(key, textTokens(value));
    else if (isStringList(value)) (fields ??= new Map()).set(key, value.flatMap((v) => textTokens(v)));
  }
  return fields;
}

/** A term's postings in one field: the numbers of the documents holding it, unordered (a removal moves the last one into its place). */
class Postings {
  docs = new Int32Array(2);
  size = 0;

  add(doc: number): void {
    if (this.size === this.docs.length) {
      const wider = new Int32Array(this.size * 2);
      wider.set(this.docs);
      this.docs = wider;
    }
    this.docs[this.size++] = doc;
  }

  /** Whether the document was here (a term repeated in a document is removed once). */
  remove(doc: number): boolean {
    const at = this.docs.subarray(0, this.size).indexOf(doc);
    if (at < 0) return false;
    this.docs[at] = this.docs[--this.size]!;
    return true;
  }
}

/**
 * The terms of an index, each with a number its documents' token arrays hold; a number no field
 * uses any more is handed out again. Its maps are one Map up to 2^23 terms (no cost below that),
 * sharded past it, so no vocabulary stops at a Map's 2^24 entries.
 */
class TermDictionary {
  private readonly ids = new ShardedMap<string, number>();
  private readonly texts: string[] = [];
  /** Per term, how many fields have postings for it. */
  private readonly fieldsUsing: number[] = [];
  private readonly free: number[] = [];

  idOf(term: string): number | undefined {
    return this.ids.get(term);
  }

  textOf(id: number): string {
    return this.texts[id]!;
  }

  /** One past the largest term number handed out (for arrays indexed by term). */
  get bound(): number {
    return this.texts.length;
  }

  intern(term: string): number {
    let id = this.ids.get(term);
    if (id !== undefined) return id;
    id = this.free.pop() ?? this.texts.length;
    this.ids.set(term, id);
    this.texts[id] = term;
    this.fieldsUsing[id] = 0;
    return id;
  }

  used(id: number): void {
    this.fieldsUsing[id]!++;
  }

  unused(id: number): void {
    if (--this.fieldsUsing[id]! > 0) return;
    this.ids.delete(this.texts[id]!);
    this.texts[id] = '';
    this.free.push(id);
  }

  *entries(): Iterable<[string, number]> {
    yield* this.ids;
  }
}

/**
 * One property of a full-text index as Lucene keeps a field: its postings by term number, each
 * document's tokens in order (term numbers; positions for phrases and term frequencies are read
 * from them), and the collection statistics BM25 needs: documents with at least one token in
 * the field, their token total, and a term's document frequency (its postings' size).
 */
export class FieldPostings {
  docCount = 0;
  totalLength = 0;
  readonly postings = new ShardedMap<number, Postings>();
  /** Each document's tokens as term numbers, by document number (undefined: no token here). */
  readonly tokens: (Int32Array | undefined)[] = [];

  constructor(private readonly dictionary: TermDictionary) {}

  docFreq(term: string): number {
    const id = this.dictionary.idOf(term);
    return id === undefined ? 0 : (this.postings.get(id)?.size ?? 0);
  }

  /** The field's terms (the term dictionary walked by prefix, wildcard, range and fuzzy clauses). */
  *terms(): Iterable<string> {
    for (const [id] of this.postings) yield this.dictionary.textOf(id);
  }

  /** The documents holding term number `id`: a view, valid until the next write. */
  docsWith(id: number): Int32Array {
    const p = this.postings.get(id);
    return p ? p.docs.subarray(0, p.size) : new Int32Array(0);
  }

  add(doc: number, words: readonly string[]): void {
    if (words.length === 0) return;
    const tokens = new Int32Array(words.length);
    this.tokens[doc] = tokens;
    this.docCount++;
    this.totalLength += tokens.length;
    for (let i = 0; i < words.length; i++) {
      const id = (tokens[i] = this.dictionary.intern(words[i]!));
      let p = this.postings.get(id);
      if (!p) {
        this.postings.set(id, (p = new Postings()));
        this.dictionary.used(id);
      } else if (p.docs[p.size - 1] === doc) continue;
      p.add(doc);
    }
  }

  remove(doc: number): void {
    const tokens = this.tokens[doc];
    if (!tokens) return;
    this.tokens[doc] = undefined;
    this.docCount--;
    this.totalLength -= tokens.length;
    for (const id of tokens) {
      const p = this.postings.get(id);
      if (!p?.remove(doc) || p.size > 0) continue;
      this.postings.delete(id);
      this.dictionary.unused(id);
    }
  }
}

/**
 * The inverted index of one full-text index definition (its labels and properties), kept as a
 * view: every node carrying one of the labels and holding one of the properties as text is a
 * document, numbered densely (a number let go of is reused), with one FieldPostings per
 * property. A query reads the postings of the terms it names; the clauses that match terms by
 * pattern walk the term dictionary, never the documents.
 */
export class FullTextIndex {
  private readonly docOf = new ShardedMap<PointId, number>(LIVE_SHARD_LIMIT);
  private readonly ids: PointId[] = [];
  private readonly freeDocs: number[] = [];
  private readonly dictionary = new TermDictionary();
  private readonly fieldPostings: Map<string, FieldPostings>;

  constructor(readonly labels: readonly string[], readonly properties: readonly string[]) {
    this.fieldPostings = new Map(properties.map((p) => [p, new FieldPostings(this.dictionary)]));
  }

  /** Documents in the index. */
  get size(): number {
    return this.docOf.size;
  }

  /** One past the largest document number (for arrays indexed by document). */
  get docBound(): number {
    return this.ids.length;
  }

  /** A field's postings and statistics; undefined while no document has a token in it (as Lucene has no statistics for such a field). */
  field(name: string): FieldPostings | undefined {
    const f = this.fieldPostings.get(name);
    return f && f.docCount > 0 ? f : undefined;
  }

  termId(term: string): number | undefined {
    return this.dictionary.idOf(term);
  }

  termText(id: number): string {
    return this.dictionary.textOf(id);
  }

  get termBound(): number {
    return this.dictionary.bound;
  }

  /** Every term of every field, with its number. */
  terms(): Iterable<[string, number]> {
    return this.dictionary.entries();
  }

  has(id: PointId): boolean {
    return this.docOf.has(id);
  }

  idOf(doc: number): PointId {
    return this.ids[doc]!;
  }

  /** Calls visit with each document's number. */
  forEachDoc(visit: (doc: number) => void): void {
    for (const [, doc] of this.docOf) visit(doc);
  }

  /** A node was written: its document now is what its labels and payload make it (or none). */
  put(id: PointId, labels: readonly string[], payload: Payload): void {
    this.remove(id);
    if (!labels.some((l) => this.labels.includes(l))) return;
    const fields = fieldTokens(payload, this.properties);
    if (!fields) return;
    const doc = this.freeDocs.pop() ?? this.ids.length;
    this.ids[doc] = id;
    this.docOf.set(id, doc);
    for (const [name, words] of fields) this.fieldPostings.get(name)!.add(doc, words);
  }

  /** A node was deleted (or is written again). */
  remove(id: PointId): void {
    const doc = this.docOf.get(id);
    if (doc === undefined) return;
    this.docOf.delete(id);
    for (const f of this.fieldPostings.values()) f.remove(doc);
    this.freeDocs.push(doc);
  }
}
