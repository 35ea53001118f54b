import { invalidArgument } from './status.js';

/** A request message as REST JSON, whose fields are taken out as they go to the path, the query string or the body. */
export type Fields = Record<string, unknown>;

export function take(fields: Fields, name: string): unknown {
  const value = fields[name];
  delete fields[name];
  return value;
}

/** The collection a request names, as a path segment. */
export function collectionPath(fields: Fields): string {
  const name = take(fields, 'collection_name');
  if (typeof name !== 'string' || name === '') throw invalidArgument('collection_name is required');
  return `/collections/${encodeURIComponent(name)}`;
}

/**
 * The options a single node has no use for: `ordering` (every write is ordered), `read_consistency`
 * (one replica) and `timeout` (every write waits until durable) are accepted and have no effect,
 * as on the REST port. `wait` goes to the query string as REST's.
 */
export function writeOptions(fields: Fields): string {
  const wait = take(fields, 'wait');
  take(fields, 'ordering');
  take(fields, 'timeout');
  return wait === true ? '?wait=true' : '';
}

export function readOptions(fields: Fields): void {
  take(fields, 'read_consistency');
  take(fields, 'timeout');
}

/** gRPC's `with_vectors` is REST's `with_vector`. */
export function withVector(fields: Fields): Fields {
  if ('with_vectors' in fields) fields.with_vector = take(fields, 'with_vectors');
  return fields;
}

/** Moves a PointsSelector ({points} or {filter}, selector-codecs.ts) into the body. */
export function spreadSelector(fields: Fields, name: string): Fields {
  const selector = take(fields, name) as Fields | undefined;
  return selector ? { ...fields, ...selector } : fields;
}

/**
 * SearchPoints' vector, vector_name and sparse_indices as REST's one `vector`: the floats, or
 * {name, vector} with a name, where a sparse vector is {indices, values}.
 */
export function searchVector(fields: Fields): Fields {
  const values = take(fields, 'vector');
  const name = take(fields, 'vector_name');
  const sparse = take(fields, 'sparse_indices') as { data?: number[] } | undefined;
  const vector = sparse ? { indices: sparse.data ?? [], values: values ?? [] } : values;
  fields.vector = name === undefined ? vector : { name, vector };
  return withVector(fields);
}

/** RecommendPoints' examples as REST's: ids and vectors in one positive and one negative list. */
export function recommendExamples(fields: Fields): Fields {
  for (const side of ['positive', 'negative']) {
    const ids = (take(fields, side) as unknown[] | undefined) ?? [];
    const vectors = (take(fields, `${side}_vectors`) as unknown[] | undefined) ?? [];
    if (ids.length + vectors.length > 0) fields[side] = [...ids, ...vectors];
  }
  return withVector(fields);
}

/** For a call with no body: a field left after the path took its own is one we do not handle (the empty string when none is). */
export function noOtherFields(fields: Fields): string {
  const extra = Object.keys(fields)[0];
  if (extra !== undefined) throw invalidArgument(`${extra} is not a field we handle here`);
  return '';
}
