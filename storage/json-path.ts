/**
 * Qdrant's JSON paths into a payload: `a.b` (keys), `a[0]` (one element of an array), `a[].b`
 * (every element), and `"a.b"` (a key quoted when it holds other characters than letters,
 * digits, `_` and `-`). Read, set and remove follow Qdrant's segment/json_path: a key step does
 * not look through an array (`a[].b` does), and reading ends at the first step that does not fit.
 */

export type PathStep = { key: string } | { index: number } | 'all';
/** A path: its first step is always a key. */
export type JsonPath = readonly PathStep[];

const RAW_KEY = /^[\p{L}\p{N}_-]+/u;

/** The steps of `text`, or null when it is not a JSON path. */
export function parseJsonPath(text: string): JsonPath | null {
  const steps: PathStep[] = [];
  let rest = text;
  const key = (): boolean => {
    const raw = RAW_KEY.exec(rest);
    if (raw) {
      steps.push({ key: raw[0] });
      rest = rest.slice(raw[0].length);
      return true;
    }
    if (rest[0] !== '"') return false;
    const end = rest.indexOf('"', 1);
    const quoted = end < 0 ? '' : rest.slice(1, end);
    if (end < 0 || quoted.includes('\\')) return false;
    steps.push({ key: quoted });
    rest = rest.slice(end + 1);
    return true;
  };
  if (!key()) return null;
  while (rest.length > 0) {
    if (rest[0] === '.') {
      rest = rest.slice(1);
      if (!key()) return null;
    } else if (rest.startsWith('[]')) {
      steps.push('all');
      rest = rest.slice(2);
    } else {
      const index = /^\[(\d+)\]/.exec(rest);
      if (!index || !Number.isSafeInteger(Number(index[1]))) return null;
      steps.push({ index: Number(index[1]) });
      rest = rest.slice(index[0].length);
    }
  }
  return steps;
}

/**
 * A key of a log entry written before paths were read this way: a JSON path when it is one,
 * else its dotted parts as keys (how such a key was read then), so that apply never fails.
 */
export function storedPath(text: string): JsonPath {
  return parseJsonPath(text) ?? text.split('.').map((key) => ({ key }));
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const keyOf = (step: PathStep): string | null => (typeof step === 'object' && 'key' in step ? step.key : null);

/** The values at the path (an array at its end is one value); own keys only. */
export function valuesAtPath(payload: Json, path: JsonPath): unknown[] {
  const out: unknown[] = [];
  const walk = (value: unknown, at: number): void => {
    if (at === path.length) {
      out.push(value);
      return;
    }
    const step = path[at]!;
    const key = keyOf(step);
    if (key !== null) {
      if (isObject(value) && Object.hasOwn(value, key)) walk(value[key], at + 1);
    } else if (Array.isArray(value)) {
      if (step === 'all') for (const item of value) walk(item, at + 1);
      else {
        const i = (step as { index: number }).index;
        if (i < value.length) walk(value[i], at + 1);
      }
    }
  };
  walk(payload, 0);
  return out;
}

/** A shallow copy; spread copies `__proto__` as an ordinary key, and a payload's property types (a symbol key). */
const copied = (o: Json): Json => ({ ...o });
/** Sets an own key, `__proto__` included (an assignment would set the prototype). */
const put = (o: Json, key: string, value: unknown): void => void Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });

/**
 * `values` merged into the object at the path, on copies. As Qdrant: a key step makes an object
 * (replacing what is not one), an index step writes into an element that exists (an array is
 * made where there was none), and `[]` into every element.
 */
export function setAtPath(payload: Json, path: JsonPath, values: Json): Json {
  const set = (dest: unknown, at: number): unknown => {
    if (at === path.length) return { ...(isObject(dest) ? dest : {}), ...values };
    const step = path[at]!;
    const key = keyOf(step);
    if (key !== null) {
      const obj = isObject(dest) ? copied(dest) : {};
      put(obj, key, set(Object.hasOwn(obj, key) ? obj[key] : null, at + 1));
      return obj;
    }
    if (!Array.isArray(dest)) return [];
    if (step === 'all') return dest.map((item) => set(item, at + 1));
    const i = (step as { index: number }).index;
    if (i >= dest.length) return dest;
    const arr = [...dest];
    arr[i] = set(arr[i], at + 1);
    return arr;
  };
  return set(payload, 0) as Json;
}

/**
 * The payload without what the path names, on copies (unchanged when nothing is there). As
 * Qdrant: a path ending in `[]` empties the array, one ending in an index removes nothing.
 */
export function removeAtPath(payload: Json, path: JsonPath): Json {
  const remove = (value: unknown, at: number): unknown => {
    const step = path[at]!;
    const last = at === path.length - 1;
    const key = keyOf(step);
    if (key !== null) {
      if (!isObject(value) || !Object.hasOwn(value, key)) return value;
      const obj = copied(value);
      if (last) delete obj[key];
      else put(obj, key, remove(obj[key], at + 1));
      return obj;
    }
    if (!Array.isArray(value)) return value;
    if (step === 'all') return last ? [] : value.map((item) => remove(item, at + 1));
    const i = (step as { index: number }).index;
    if (last || i >= value.length) return value;
    const arr = [...value];
    arr[i] = remove(arr[i], at + 1);
    return arr;
  };
  return remove(payload, 0) as Json;
}

/** Whether two paths agree on every step both have (one is a prefix of the other). */
function agree(a: JsonPath, b: JsonPath): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === 'all' || y === 'all') {
      if (x !== y) return false;
    } else if ('key' in x ? !('key' in y) || x.key !== y.key : !('index' in y) || x.index !== y.index) return false;
  }
  return true;
}

/**
 * A payload with only the parts the patterns include, or without those they exclude: every
 * key and element is kept while its path (an element's step being `[]`) and some include
 * pattern are one a prefix of the other, and dropped once an exclude pattern is a prefix of it.
 */
export function filterPayload(payload: Json, patterns: readonly JsonPath[], mode: 'include' | 'exclude'): Json {
  const keep = (path: JsonPath): boolean =>
    mode === 'include' ? patterns.some((p) => agree(p, path)) : !patterns.some((p) => p.length <= path.length && agree(p, path));
  const filter = (value: unknown, path: PathStep[]): unknown => {
    if (Array.isArray(value)) {
      path.push('all');
      const kept = keep(path) ? value.map((item) => filter(item, path)) : [];
      path.pop();
      return kept;
    }
    if (!isObject(value)) return value;
    const out: [string, unknown][] = [];
    for (const [k, v] of Object.entries(value)) {
      path.push({ key: k });
      if (keep(path)) out.push([k, filter(v, path)]);
      path.pop();
    }
    return Object.fromEntries(out);
  };
  return filter(payload, []) as Json;
}
