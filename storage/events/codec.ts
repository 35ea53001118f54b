import { ByteReader } from '../codec/byte-reader.js';
import { ByteWriter } from '../codec/byte-writer.js';
import { CorruptDataError } from '../errors.js';
import { parsePayloadText, payloadText } from '../codec/payload-text.js';
import { uuidFromBytes, uuidIntoBytes, UUID_BYTES, type PointId } from '../point-id.js';
import { DISTANCES, FIELD_INDEX_TYPES, MULTIVECTOR_COMPARATORS, SPARSE_MODIFIERS, type MultiVector, type MultiVectorConfig, type AliasAction, type CollectionConfig, type CollectionSettings, type FieldIndex, type ImportCollectionEvent, type NamedVectorConfig, type Payload, type DbEvent, type EdgeRecord, type GraphChange, type PointRecord, type PointUpdate, type SparseVector, type SparseVectorConfig, type StagedContent, type UpsertPointsEvent, type VectorUpdate } from './types.js';
import { runNow, UPSERT_POINTS_A_STEP, type Sliced } from '../codec/slices.js';

/**
 * Binary event encoding. Layout: u8 format version, u8 event type, then the type's fields.
 * Vectors are raw little-endian float32; payloads are JSON text (never on the search path).
 * Version 2 stores edge weights as float64 with a properties JSON; version 3 writes point ids
 * tagged (an integer as float64, or a UUID as 16 bytes) where earlier versions wrote a float64;
 * version 4 adds an import's declared payload indexes after its edges; version 5 adds, after
 * those, the import's collection settings (JSON) and the operation_id its file was exported at;
 * version 6 adds named and sparse vectors: a config ends with its named dense and its sparse
 * vectors, a point's flags say whether named (2) and sparse (4) vectors follow its unnamed one,
 * update_vectors carries vectors by name and delete_vectors the names it deletes; and a payload's
 * text may carry the Cypher types of its properties (codec/payload-text.ts); version 7 adds
 * multivectors: a config ends with them, a point's flag 8 says they follow its sparse vectors, and
 * update_vectors carries them after its sparse vectors.
 * Entries of every earlier version are still read.
 */
export const EVENT_FORMAT_VERSION = 7;
/** The first version with named and sparse vectors. */
export const VECTOR_NAMES = 6;
/** The first version with multivectors. */
export const MULTIVECTORS = 7;
/** The first version whose imports carry payload index declarations. */
const IMPORT_INDEXES = 4;
/** The first version whose imports carry collection settings and the file's operation_id. */
const IMPORT_SETTINGS = 5;
/** The first version whose point ids are tagged. */
const TAGGED_IDS = 3;
const INT_ID = 0;
const UUID_ID = 1;

const TYPE_CODES = { create_collection: 1, delete_collection: 2, upsert_points: 3, delete_points: 4, upsert_edge: 5, import_collection: 6, graph_write: 7, update_points: 8, payload_index: 9, aliases: 10, collection_settings: 11 } as const;
const UPDATE_CODES = { upsert: 1, delete: 2, set_payload: 3, overwrite_payload: 4, delete_payload: 5, clear_payload: 6, update_vectors: 7, delete_vectors: 8 } as const;
const UPDATE_OPS = Object.keys(UPDATE_CODES) as PointUpdate['op'][];
/**
 * set_payload and delete_payload whose keys are Qdrant's JSON paths (`a[0].b`, `a[].b`). Codes 3
 * and 5 are kept for entries logged before, whose keys were split on dots: they are read with
 * `dottedKeys` and replay as they applied then.
 */
const SET_PAYLOAD_AT_PATH = 9;
const DELETE_PAYLOAD_AT_PATHS = 10;
const CHANGE_CODES = { create_node: 1, update_node: 2, delete_node: 3, create_edge: 4, update_edge: 5, delete_edge: 6, set_node: 7 } as const;
const HAS_VECTOR = 1;
const HAS_NAMED = 2;
const HAS_SPARSE = 4;
const HAS_MULTI = 8;
/**
 * A streamed import (its points and edges staged beside the entry, see StagedContent): the
 * import's other fields, then f64 stage | u32 blocks | f64 points | f64 edges | u8 the blocks'
 * entry format | 32 bytes SHA-256 of the blocks. A type code of its own, so that entries
 * written before it read as they did.
 */
const STAGED_IMPORT = 12;

/** Whether an event body's type code (its second byte) is a streamed import's: told without decoding the rest. */
export const isStagedImportCode = (code: number | undefined): boolean => code === STAGED_IMPORT;

export function encodeEvent(event: DbEvent): Uint8Array {
  if (event.type === 'import_collection' && event.staged) return encodeStagedImport(event);
  if (event.type === 'upsert_points') return runNow(encodeUpsertInSteps(event));
  const w = new ByteWriter(64);
  w.u8(EVENT_FORMAT_VERSION).u8(TYPE_CODES[event.type]);
  switch (event.type) {
    case 'create_collection':
      writeConfig(w.str(event.name), event.config);
      // Only a create with settings carries them: an older release refuses such an entry (it expects its end) rather than drop them.
      if (event.settings && Object.keys(event.settings).length > 0) w.str(JSON.stringify(event.settings));
      break;
    case 'delete_collection':
      w.str(event.name);
      break;
    case 'delete_points':
      w.str(event.collection).u32(event.ids.length);
      for (const id of event.ids) writePointId(w, id);
      break;
    case 'upsert_edge':
      writeEdge(w.str(event.collection), event);
      break;
    case 'import_collection':
      writeConfig(w.str(event.name).u8(IMPORT_MODES.indexOf(event.mode)), event.config);
      w.u32(event.points.length);
      for (const p of event.points) writePoint(w, p);
      w.u32(event.edges.length);
      for (const e of event.edges) writeEdge(w, e);
      writeFieldIndexes(w, event.indexes ?? {});
      w.str(JSON.stringify(event.settings ?? {})).f64(event.exportedAt ?? 0);
      break;
    case 'collection_settings':
      w.str(event.collection).str(JSON.stringify(event.settings));
      break;
    case 'aliases':
      w.u32(event.actions.length);
      for (const a of event.actions) {
        if ('create' in a) w.u8(1).str(a.create.alias).str(a.create.collection);
        else if ('delete' in a) w.u8(2).str(a.delete.alias);
        else w.u8(3).str(a.rename.from).str(a.rename.to);
      }
      break;
    case 'payload_index':
      w.str(event.collection).str(event.field).u8(event.index === null ? 0 : 1);
      if (event.index !== null) writeFieldIndex(w, event.index);
      break;
    case 'graph_write':
      w.str(event.collection).u32(event.changes.length);
      for (const c of event.changes) writeChange(w, c);
      break;
    case 'update_points':
      w.str(event.collection).u32(event.updates.length);
      for (const u of event.updates) writeUpdate(w, u);
      break;
  }
  return w.finish();
}

/**
 * encodeEvent of an upsert, yielding between steps: a large one is encoded a slice at a time
 * on the request thread before it is logged (Engine.submitInSlices, EventLog.append's `body`).
 */
export function* encodeUpsertInSteps(event: UpsertPointsEvent): Sliced<Uint8Array> {
  const w = new ByteWriter(64 + event.points.reduce((n, p) => n + pointSizeHint(p), 0));
  w.u8(EVENT_FORMAT_VERSION).u8(TYPE_CODES.upsert_points).str(event.collection).u32(event.points.length);
  for (let i = 0; i < event.points.length; i++) {
    writePoint(w, event.points[i]!);
    if (i % UPSERT_POINTS_A_STEP === UPSERT_POINTS_A_STEP - 1) yield;
  }
  return w.finish();
}

const IMPORT_MODES = ['create', 'replace', 'merge'] as const;

const idBytes = new Uint8Array(UUID_BYTES);

export function writePointId(w: ByteWriter, id: PointId): void {
  if (typeof id === 'number') {
    w.u8(INT_ID).f64(id);
    return;
  }
  uuidIntoBytes(id, idBytes);
  w.u8(UUID_ID).bytes(idBytes);
}

export function readPointId(r: ByteReader, version: number): PointId {
  if (version < TAGGED_IDS) return r.f64();
  const tag = r.u8();
  if (tag === INT_ID) return r.f64();
  if (tag === UUID_ID) return uuidFromBytes(r.bytes(UUID_BYTES));
  throw new CorruptDataError(`unknown point id tag ${tag}`);
}

/** A config as MULTIVECTORS and later write it: the unnamed vector's, then the named, sparse and multivectors. */
export function writeConfig(w: ByteWriter, c: CollectionConfig): void {
  writeDenseConfig(w, c);
  const named = Object.entries(c.named ?? {});
  w.u32(named.length);
  for (const [name, v] of named) writeDenseConfig(w.str(name), v).u8(v.onDisk ? 1 : 0);
  const sparse = Object.entries(c.sparse ?? {});
  w.u32(sparse.length);
  for (const [name, v] of sparse) w.str(name).u8(SPARSE_MODIFIERS.indexOf(v.modifier)).str(JSON.stringify(v.index));
  const multi = Object.entries(c.multi ?? {});
  w.u32(multi.length);
  for (const [name, v] of multi) w.str(name).u32(v.size).u8(DISTANCES.indexOf(v.distance)).u8(MULTIVECTOR_COMPARATORS.indexOf(v.comparator));
}

function writeDenseConfig(w: ByteWriter, c: Omit<NamedVectorConfig, 'onDisk'>): ByteWriter {
  return w.u32(c.size).u8(DISTANCES.indexOf(c.distance)).u32(c.m).u32(c.m0).u32(c.efConstruct).f64(c.ml);
}

function readDenseConfig(r: ByteReader): Omit<NamedVectorConfig, 'onDisk'> {
  const size = r.u32();
  const distance = DISTANCES[r.u8()];
  if (!distance) throw new CorruptDataError('unknown distance code');
  return { size, distance, m: r.u32(), m0: r.u32(), efConstruct: r.u32(), ml: r.f64() };
}

/** A config written at event format `version` (before VECTOR_NAMES: the unnamed vector only; before MULTIVECTORS: no multivectors). */
export function readConfig(r: ByteReader, version: number): CollectionConfig {
  const config: CollectionConfig = readDenseConfig(r);
  if (version < VECTOR_NAMES) return config;
  const named: Record<string, NamedVectorConfig> = {};
  for (let n = r.u32(), i = 0; i < n; i++) {
    const name = r.str();
    named[name] = { ...readDenseConfig(r), onDisk: r.u8() === 1 };
  }
  const sparse: Record<string, SparseVectorConfig> = {};
  for (let n = r.u32(), i = 0; i < n; i++) {
    const name = r.str();
    const modifier = SPARSE_MODIFIERS[r.u8()];
    if (!modifier) throw new CorruptDataError(`sparse vector "${name}" has an unknown modifier code`);
    sparse[name] = { modifier, index: readJson(r, `the index options of sparse vector "${name}"`) };
  }
  if (Object.keys(named).length > 0) config.named = named;
  if (Object.keys(sparse).length > 0) config.sparse = sparse;
  if (version < MULTIVECTORS) return config;
  const multi: Record<string, MultiVectorConfig> = {};
  for (let n = r.u32(), i = 0; i < n; i++) {
    const name = r.str();
    const size = r.u32();
    const distance = DISTANCES[r.u8()];
    const comparator = MULTIVECTOR_COMPARATORS[r.u8()];
    if (!distance || !comparator) throw new CorruptDataError(`multivector "${name}" has an unknown distance or comparator code`);
    multi[name] = { size, distance, comparator };
  }
  if (Object.keys(multi).length > 0) config.multi = multi;
  return config;
}

export function writeEdge(w: ByteWriter, e: EdgeRecord): void {
  const props = e.properties && Object.keys(e.properties).length > 0 ? payloadText(e.properties) : '';
  writePointId(w, e.from);
  writePointId(w, e.to);
  w.str(e.relation).f64(e.weight).str(props);
}

export function readEdge(r: ByteReader, version = EVENT_FORMAT_VERSION): EdgeRecord {
  const edge: EdgeRecord = { from: readPointId(r, version), to: readPointId(r, version), relation: r.str(), weight: version === 1 ? r.f32() : r.f64() };
  if (version === 1) return edge;
  const props = r.str();
  if (props === '') return edge;
  edge.properties = parsePayloadText(props, `the properties of an edge ${edge.from} -> ${edge.to}`);
  return edge;
}

function writeChange(w: ByteWriter, c: GraphChange): void {
  w.u8(CHANGE_CODES[c.kind]);
  switch (c.kind) {
    case 'create_node':
    case 'update_node':
      writePoint(w, c.point);
      break;
    case 'delete_node':
      writePointId(w, c.id);
      break;
    case 'delete_edge':
      w.f64(c.id);
      break;
    case 'create_edge':
      writeEdge(w.f64(c.id), c.edge);
      break;
    case 'update_edge':
      w.f64(c.id).f64(c.weight).str(payloadText(c.properties));
      break;
    case 'set_node':
      writePointId(w, c.id);
      w.str(payloadText(c.payload)).u16(c.labels.length);
      for (const label of c.labels) w.str(label);
      break;
  }
}

function readChange(r: ByteReader, version: number): GraphChange {
  const code = r.u8();
  switch (code) {
    case CHANGE_CODES.create_node:
      return { kind: 'create_node', point: readPoint(r, version) };
    case CHANGE_CODES.update_node:
      return { kind: 'update_node', point: readPoint(r, version) };
    case CHANGE_CODES.delete_node:
      return { kind: 'delete_node', id: readPointId(r, version) };
    case CHANGE_CODES.create_edge:
      return { kind: 'create_edge', id: r.f64(), edge: readEdge(r, version) };
    case CHANGE_CODES.update_edge: {
      const id = r.f64();
      const weight = r.f64();
      return { kind: 'update_edge', id, weight, properties: parsePayloadText(r.str(), `the properties of relationship ${id}`) };
    }
    case CHANGE_CODES.delete_edge:
      return { kind: 'delete_edge', id: r.f64() };
    case CHANGE_CODES.set_node: {
      const id = readPointId(r, version);
      const payload = parsePayloadText(r.str(), `the payload of node ${id}`);
      const labels: string[] = [];
      for (let n = r.u16(), i = 0; i < n; i++) labels.push(r.str());
      return { kind: 'set_node', id, payload, labels };
    }
    default:
      throw new CorruptDataError(`unknown graph change code ${code}`);
  }
}

/** About what writePoint takes for a point with a small payload, so that the writer seldom has to grow. */
function pointSizeHint(p: PointRecord): number {
  let bytes = 64 + (p.vector?.byteLength ?? 0);
  for (const v of Object.values(p.named ?? {})) bytes += 32 + v.byteLength;
  for (const v of Object.values(p.sparse ?? {})) bytes += 32 + v.indices.byteLength + v.values.byteLength;
  for (const v of Object.values(p.multi ?? {})) bytes += 32 + v.values.byteLength;
  return bytes;
}

export function writePoint(w: ByteWriter, p: PointRecord): void {
  writePointId(w, p.id);
  const named = p.named ? Object.entries(p.named) : [];
  const sparse = p.sparse ? Object.entries(p.sparse) : [];
  const multi = p.multi ? Object.entries(p.multi) : [];
  w.u8((p.vector ? HAS_VECTOR : 0) | (named.length > 0 ? HAS_NAMED : 0) | (sparse.length > 0 ? HAS_SPARSE : 0) | (multi.length > 0 ? HAS_MULTI : 0));
  if (p.vector) w.u32(p.vector.length).floats(p.vector);
  if (named.length > 0) writeNamedDense(w, named);
  if (sparse.length > 0) writeNamedSparse(w, sparse);
  if (multi.length > 0) writeNamedMulti(w, multi);
  w.str(payloadText(p.payload)).u16(p.labels.length);
  for (const label of p.labels) w.str(label);
}

function writeNamedDense(w: ByteWriter, vectors: [string, Float32Array][]): void {
  w.u32(vectors.length);
  for (const [name, v] of vectors) w.str(name).u32(v.length).floats(v);
}

function writeNamedSparse(w: ByteWriter, vectors: [string, SparseVector][]): void {
  w.u32(vectors.length);
  for (const [name, v] of vectors) {
    w.str(name).u32(v.indices.length);
    for (const i of v.indices) w.u32(i);
    w.floats(v.values);
  }
}

/** Each multivector as u32 row size | u32 rows | rows x size float32. */
function writeNamedMulti(w: ByteWriter, vectors: [string, MultiVector][]): void {
  w.u32(vectors.length);
  for (const [name, v] of vectors) w.str(name).u32(v.dim).u32(v.values.length / v.dim).floats(v.values);
}

function readNamedMulti(r: ByteReader): Record<string, MultiVector> {
  const out: Record<string, MultiVector> = {};
  for (let n = r.u32(), i = 0; i < n; i++) {
    const name = r.str();
    const dim = r.u32();
    const rows = r.u32();
    if (dim * rows * 4 > r.remaining) throw new CorruptDataError(`multivector of ${rows} x ${dim} floats runs past the record`);
    const values = new Float32Array(dim * rows);
    r.floatsInto(values, 0, values.length);
    out[name] = { dim, values };
  }
  return out;
}

function readFloats(r: ByteReader): Float32Array {
  const dim = r.u32();
  if (dim * 4 > r.remaining) throw new CorruptDataError(`vector of ${dim} floats runs past the record`);
  const vector = new Float32Array(dim);
  r.floatsInto(vector, 0, dim);
  return vector;
}

function readNamedDense(r: ByteReader): Record<string, Float32Array> {
  const out: Record<string, Float32Array> = {};
  for (let n = r.u32(), i = 0; i < n; i++) {
    const name = r.str();
    out[name] = readFloats(r);
  }
  return out;
}

function readNamedSparse(r: ByteReader): Record<string, SparseVector> {
  const out: Record<string, SparseVector> = {};
  for (let n = r.u32(), i = 0; i < n; i++) {
    const name = r.str();
    const count = r.u32();
    if (count * 8 > r.remaining) throw new CorruptDataError(`sparse vector of ${count} elements runs past the record`);
    const indices = new Uint32Array(count);
    for (let k = 0; k < count; k++) indices[k] = r.u32();
    const values = new Float32Array(count);
    r.floatsInto(values, 0, count);
    out[name] = { indices, values };
  }
  return out;
}

export function decodeEvent(bytes: Uint8Array, start = 0, end = bytes.length): DbEvent {
  const r = new ByteReader(bytes, start, end);
  const version = r.u8();
  if (version < 1 || version > EVENT_FORMAT_VERSION) throw new CorruptDataError(`unknown event format version ${version}`);
  const code = r.u8();
  let event: DbEvent;
  switch (code) {
    case TYPE_CODES.create_collection:
      event = { type: 'create_collection', name: r.str(), config: readConfig(r, version) };
      if (r.remaining > 0) event.settings = readSettings(r);
      break;
    case TYPE_CODES.delete_collection:
      event = { type: 'delete_collection', name: r.str() };
      break;
    case TYPE_CODES.upsert_points: {
      const collection = r.str();
      const count = r.u32();
      const points: PointRecord[] = [];
      for (let i = 0; i < count; i++) points.push(readPoint(r, version));
      event = { type: 'upsert_points', collection, points };
      break;
    }
    case TYPE_CODES.delete_points: {
      const collection = r.str();
      const count = r.u32();
      const ids: PointId[] = [];
      for (let i = 0; i < count; i++) ids.push(readPointId(r, version));
      event = { type: 'delete_points', collection, ids };
      break;
    }
    case TYPE_CODES.upsert_edge:
      event = { type: 'upsert_edge', collection: r.str(), ...readEdge(r, version) };
      break;
    case TYPE_CODES.import_collection: {
      const name = r.str();
      const mode = IMPORT_MODES[r.u8()];
      if (!mode) throw new CorruptDataError('unknown import mode');
      const config = readConfig(r, version);
      const points: PointRecord[] = [];
      for (let n = r.u32(), i = 0; i < n; i++) points.push(readPoint(r, version));
      const edges: EdgeRecord[] = [];
      for (let n = r.u32(), i = 0; i < n; i++) edges.push(readEdge(r, version));
      event = { type: 'import_collection', name, mode, config, points, edges };
      if (version >= IMPORT_INDEXES) event.indexes = readFieldIndexes(r);
      if (version >= IMPORT_SETTINGS) {
        event.settings = readSettings(r);
        event.exportedAt = r.f64();
      }
      break;
    }
    case STAGED_IMPORT:
      event = readStagedImport(r, version);
      break;
    case TYPE_CODES.graph_write: {
      const collection = r.str();
      const changes: GraphChange[] = [];
      for (let n = r.u32(), i = 0; i < n; i++) changes.push(readChange(r, version));
      event = { type: 'graph_write', collection, changes };
      break;
    }
    case TYPE_CODES.collection_settings: {
      const collection = r.str();
      event = { type: 'collection_settings', collection, settings: readJson(r, 'collection settings') };
      break;
    }
    case TYPE_CODES.aliases: {
      const actions: AliasAction[] = [];
      for (let n = r.u32(), i = 0; i < n; i++) {
        const code = r.u8();
        if (code === 1) actions.push({ create: { alias: r.str(), collection: r.str() } });
        else if (code === 2) actions.push({ delete: { alias: r.str() } });
        else if (code === 3) actions.push({ rename: { from: r.str(), to: r.str() } });
        else throw new CorruptDataError(`unknown alias action code ${code}`);
      }
      event = { type: 'aliases', actions };
      break;
    }
    case TYPE_CODES.payload_index: {
      const collection = r.str();
      const field = r.str();
      event = { type: 'payload_index', collection, field, index: r.u8() === 1 ? readFieldIndex(r) : null };
      break;
    }
    case TYPE_CODES.update_points: {
      const collection = r.str();
      const updates: PointUpdate[] = [];
      for (let n = r.u32(), i = 0; i < n; i++) updates.push(readUpdate(r, version));
      event = { type: 'update_points', collection, updates };
      break;
    }
    default:
      throw new CorruptDataError(`unknown event type code ${code}`);
  }
  r.expectEnd();
  return event;
}

export function writeFieldIndex(w: ByteWriter, index: FieldIndex): void {
  w.str(index.type).str(JSON.stringify(index.params));
}

export function readFieldIndex(r: ByteReader): FieldIndex {
  const type = r.str() as FieldIndex['type'];
  if (!FIELD_INDEX_TYPES.includes(type)) throw new CorruptDataError(`unknown payload index type "${type}"`);
  return { type, params: readJson(r, 'payload index options') };
}

export function writeFieldIndexes(w: ByteWriter, indexes: Readonly<Record<string, FieldIndex>>): void {
  const fields = Object.keys(indexes).sort();
  w.u32(fields.length);
  for (const field of fields) writeFieldIndex(w.str(field), indexes[field]!);
}

export function readFieldIndexes(r: ByteReader): Record<string, FieldIndex> {
  const out: Record<string, FieldIndex> = {};
  for (let n = r.u32(), i = 0; i < n; i++) {
    const field = r.str();
    out[field] = readFieldIndex(r);
  }
  return out;
}

function writeIds(w: ByteWriter, ids: readonly PointId[]): void {
  w.u32(ids.length);
  for (const id of ids) writePointId(w, id);
}

function readIds(r: ByteReader, version: number): PointId[] {
  const ids: PointId[] = [];
  for (let n = r.u32(), i = 0; i < n; i++) ids.push(readPointId(r, version));
  return ids;
}

/** Collection settings as JSON text: an object of objects (a group's definitions may be null). */
export function readSettings(r: ByteReader): CollectionSettings {
  const settings: unknown = readJson(r, 'collection settings');
  if (!isObject(settings) || !Object.values(settings).every(isObject)) throw new CorruptDataError('collection settings must map each group to an object');
  return settings as CollectionSettings;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readJson(r: ByteReader, what: string): Payload {
  try {
    return JSON.parse(r.str()) as Payload;
  } catch {
    throw new CorruptDataError(`${what} is not valid JSON`);
  }
}

function writeUpdate(w: ByteWriter, u: PointUpdate): void {
  if (u.op === 'set_payload' && !u.dottedKeys) w.u8(SET_PAYLOAD_AT_PATH);
  else if (u.op === 'delete_payload' && !u.dottedKeys) w.u8(DELETE_PAYLOAD_AT_PATHS);
  else w.u8(UPDATE_CODES[u.op]);
  switch (u.op) {
    case 'upsert':
      w.u32(u.points.length);
      for (const p of u.points) writePoint(w, p);
      break;
    case 'delete':
    case 'clear_payload':
      writeIds(w, u.ids);
      break;
    case 'delete_vectors':
      writeIds(w, u.ids);
      w.u32(u.names.length);
      for (const name of u.names) w.str(name);
      break;
    case 'set_payload':
      writeIds(w, u.ids);
      w.str(JSON.stringify(u.payload)).u8(u.key === null ? 0 : 1);
      if (u.key !== null) w.str(u.key);
      break;
    case 'overwrite_payload':
      writeIds(w, u.ids);
      w.str(JSON.stringify(u.payload));
      break;
    case 'delete_payload':
      writeIds(w, u.ids);
      w.u32(u.keys.length);
      for (const k of u.keys) w.str(k);
      break;
    case 'update_vectors':
      w.u32(u.points.length);
      for (const p of u.points) {
        writePointId(w, p.id);
        writeNamedDense(w, Object.entries(p.dense));
        writeNamedSparse(w, Object.entries(p.sparse));
        writeNamedMulti(w, Object.entries(p.multi ?? {}));
      }
      break;
  }
}

function readUpdate(r: ByteReader, version: number): PointUpdate {
  const code = r.u8();
  const paths = code === SET_PAYLOAD_AT_PATH || code === DELETE_PAYLOAD_AT_PATHS;
  const op = code === SET_PAYLOAD_AT_PATH ? 'set_payload' : code === DELETE_PAYLOAD_AT_PATHS ? 'delete_payload' : UPDATE_OPS[code - 1];
  const dotted = paths ? {} : { dottedKeys: true as const };
  switch (op) {
    case 'upsert': {
      const points: PointRecord[] = [];
      for (let n = r.u32(), i = 0; i < n; i++) points.push(readPoint(r, version));
      return { op, points };
    }
    case 'delete':
    case 'clear_payload':
      return { op, ids: readIds(r, version) };
    case 'delete_vectors': {
      const ids = readIds(r, version);
      if (version < VECTOR_NAMES) return { op, ids, names: [''] };
      const names: string[] = [];
      for (let n = r.u32(), i = 0; i < n; i++) names.push(r.str());
      return { op, ids, names };
    }
    case 'set_payload': {
      const ids = readIds(r, version);
      const payload = readJson(r, 'a set_payload payload');
      return { op, ids, payload, key: r.u8() === 1 ? r.str() : null, ...dotted };
    }
    case 'overwrite_payload':
      return { op, ids: readIds(r, version), payload: readJson(r, 'an overwrite_payload payload') };
    case 'delete_payload': {
      const ids = readIds(r, version);
      const keys: string[] = [];
      for (let n = r.u32(), i = 0; i < n; i++) keys.push(r.str());
      return { op, ids, keys, ...dotted };
    }
    case 'update_vectors': {
      const points: VectorUpdate[] = [];
      for (let n = r.u32(), i = 0; i < n; i++) {
        const id = readPointId(r, version);
        if (version < VECTOR_NAMES) points.push({ id, dense: { '': readFloats(r) }, sparse: {} });
        else {
          const update: VectorUpdate = { id, dense: readNamedDense(r), sparse: readNamedSparse(r) };
          const multi = version >= MULTIVECTORS ? readNamedMulti(r) : {};
          if (Object.keys(multi).length > 0) update.multi = multi;
          points.push(update);
        }
      }
      return { op, points };
    }
    default:
      throw new CorruptDataError(`unknown point update code ${code}`);
  }
}

export function readPoint(r: ByteReader, version: number): PointRecord {
  const id = readPointId(r, version);
  const flags = r.u8();
  const vector = flags & HAS_VECTOR ? readFloats(r) : null;
  const named = version >= VECTOR_NAMES && flags & HAS_NAMED ? readNamedDense(r) : undefined;
  const sparse = version >= VECTOR_NAMES && flags & HAS_SPARSE ? readNamedSparse(r) : undefined;
  const multi = version >= MULTIVECTORS && flags & HAS_MULTI ? readNamedMulti(r) : undefined;
  const payload = parsePayloadText(r.str(), `the payload of point ${id}`);
  const labels: string[] = [];
  for (let n = r.u16(), i = 0; i < n; i++) labels.push(r.str());
  const point: PointRecord = { id, vector, payload, labels };
  if (named) point.named = named;
  if (sparse) point.sparse = sparse;
  if (multi) point.multi = multi;
  return point;
}

function encodeStagedImport(event: ImportCollectionEvent): Uint8Array {
  const staged = event.staged!;
  const w = new ByteWriter(256).u8(EVENT_FORMAT_VERSION).u8(STAGED_IMPORT);
  writeConfig(w.str(event.name).u8(IMPORT_MODES.indexOf(event.mode)), event.config);
  writeFieldIndexes(w, event.indexes ?? {});
  w.str(JSON.stringify(event.settings ?? {})).f64(event.exportedAt ?? 0);
  w.f64(staged.stage).u32(staged.blocks).f64(staged.points).f64(staged.edges).u8(staged.version).bytes(staged.digest);
  return w.finish();
}

function readStagedImport(r: ByteReader, version: number): ImportCollectionEvent {
  const name = r.str();
  const mode = IMPORT_MODES[r.u8()];
  if (!mode) throw new CorruptDataError('unknown import mode');
  const config = readConfig(r, version);
  const indexes = readFieldIndexes(r);
  const settings = readSettings(r);
  const exportedAt = r.f64();
  const staged: StagedContent = { stage: r.f64(), blocks: r.u32(), points: r.f64(), edges: r.f64(), version: r.u8(), digest: r.bytes(32).slice() };
  return { type: 'import_collection', name, mode, config, points: [], edges: [], indexes, settings, exportedAt, staged };
}
