import type { ByteReader } from '../codec/byte-reader.js';
import { parsePayloadText, payloadText } from '../codec/payload-text.js';
import { readRaw } from '../codec/raw-arrays.js';
import { rawPieces, type Captured } from '../codec/slices.js';
import type { Payload } from '../events/types.js';
import { uuidFromBytes, uuidIntoBytes, UUID_BYTES, type PointId } from '../point-id.js';
import { LIVE_SHARD_LIMIT, ShardedMap } from './sharded.js';

/** One directed, weighted, typed edge; `properties` holds every property but the weight. */
export interface Edge {
  id: number;
  from: PointId;
  to: PointId;
  relation: string;
  weight: number;
  properties: Payload;
}

const NO_PROPERTIES: Payload = Object.freeze({});

export type Direction = 'outgoing' | 'incoming' | 'both';

const NO_EDGES: readonly number[] = Object.freeze([]);
/** Relationship properties encoded between two yields of a snapshot's encoding. */
const PROPERTIES_PER_PIECE = 1024;

/**
 * The edges of one collection: a multigraph with an id per edge, kept in columns (endpoints,
 * interned relation, weight), with outgoing and incoming edge-id lists per point id. Other
 * relationship properties (rare: Cypher's) sit in a sparse map by edge id. The maps are sharded, so
 * more than 2^24 points may have edges. An endpoint column holds an integer point id as is and a
 * UUID as a negative code into a table of the UUIDs seen (-1 is the first), kept for the store's
 * life so a code never changes meaning.
 * Edge ids are handed out in apply order, so a replay gives every edge the same id.
 */
export class GraphStore {
  private from = new Float64Array(256);
  private to = new Float64Array(256);
  private weight = new Float64Array(256);
  private readonly extra = new ShardedMap<number, Payload>(LIVE_SHARD_LIMIT);
  private relationOf = new Int32Array(256);
  private alive = new Uint8Array(256);
  private nextId = 0;
  private readonly relations: string[] = [];
  private readonly relationIds = new Map<string, number>();
  private readonly out = new ShardedMap<PointId, number[]>(LIVE_SHARD_LIMIT);
  private readonly in = new ShardedMap<PointId, number[]>(LIVE_SHARD_LIMIT);
  private readonly uuids: string[] = [];
  private readonly uuidCodes = new ShardedMap<string, number>(LIVE_SHARD_LIMIT);
  edgeCount = 0;

  /** The endpoint column's value for a point id (UUIDs get a code the first time they are seen). */
  private code(id: PointId): number {
    if (typeof id === 'number') return id;
    let code = this.uuidCodes.get(id);
    if (code === undefined) {
      this.uuids.push(id);
      code = -this.uuids.length;
      this.uuidCodes.set(id, code);
    }
    return code;
  }

  private pointOf(code: number): PointId {
    return code >= 0 ? code : this.uuids[-1 - code]!;
  }

  private grow(): void {
    const cap = this.from.length * 2;
    const widen = <T extends Float64Array | Float32Array | Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.from = widen(this.from, (n) => new Float64Array(n));
    this.to = widen(this.to, (n) => new Float64Array(n));
    this.weight = widen(this.weight, (n) => new Float64Array(n));
    this.relationOf = widen(this.relationOf, (n) => new Int32Array(n));
    this.alive = widen(this.alive, (n) => new Uint8Array(n));
  }

  private intern(relation: string): number {
    let id = this.relationIds.get(relation);
    if (id === undefined) {
      id = this.relations.length;
      this.relations.push(relation);
      this.relationIds.set(relation, id);
    }
    return id;
  }

  private static link(lists: ShardedMap<PointId, number[]>, point: PointId, edge: number): void {
    const list = lists.get(point);
    if (list) list.push(edge);
    else lists.set(point, [edge]);
  }

  private static unlink(lists: ShardedMap<PointId, number[]>, point: PointId, edge: number): void {
    const list = lists.get(point);
    if (!list) return;
    const at = list.indexOf(edge);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) lists.delete(point);
  }

  /** The id the next new edge gets; ids below it are used (live or deleted). */
  get nextEdgeId(): number {
    return this.nextId;
  }

  /**
   * Adds a new edge (a multigraph: parallel edges are allowed); returns its id. `id`, when
   * given, must be at least nextEdgeId (a Cypher write names the ids it handed out).
   */
  add(from: PointId, to: PointId, relation: string, weight: number, properties: Payload = NO_PROPERTIES, id = this.nextId): number {
    if (id < this.nextId) throw new RangeError(`edge id ${id} is already used`);
    while (id >= this.from.length) this.grow();
    this.nextId = id + 1;
    this.from[id] = this.code(from);
    this.to[id] = this.code(to);
    this.weight[id] = weight;
    this.relationOf[id] = this.intern(relation);
    this.alive[id] = 1;
    if (Object.keys(properties).length > 0) this.extra.set(id, properties);
    GraphStore.link(this.out, from, id);
    GraphStore.link(this.in, to, id);
    this.edgeCount++;
    return id;
  }

  /** The first live edge from → to with this relation, or -1. */
  find(from: PointId, to: PointId, relation: string): number {
    const rel = this.relationIds.get(relation);
    if (rel === undefined) return -1;
    const target = typeof to === 'number' ? to : this.uuidCodes.get(to);
    if (target === undefined) return -1;
    for (const e of this.out.get(from) ?? NO_EDGES) if (this.to[e] === target && this.relationOf[e] === rel) return e;
    return -1;
  }

  setWeight(edge: number, weight: number): void {
    this.weight[edge] = weight;
  }

  /** Replaces an edge's weight and other properties. */
  setProperties(edge: number, weight: number, properties: Payload): void {
    this.weight[edge] = weight;
    if (Object.keys(properties).length > 0) this.extra.set(edge, properties);
    else this.extra.delete(edge);
  }

  has(edge: number): boolean {
    return edge >= 0 && edge < this.nextId && this.alive[edge] === 1;
  }

  remove(edge: number): boolean {
    if (edge < 0 || edge >= this.nextId || !this.alive[edge]) return false;
    this.alive[edge] = 0;
    this.extra.delete(edge);
    GraphStore.unlink(this.out, this.source(edge), edge);
    GraphStore.unlink(this.in, this.target(edge), edge);
    this.edgeCount--;
    return true;
  }

  /** Removes every edge that starts or ends at the point. */
  removeIncident(point: PointId): void {
    for (const e of [...(this.out.get(point) ?? NO_EDGES), ...(this.in.get(point) ?? NO_EDGES)]) this.remove(e);
  }

  edge(id: number): Edge | null {
    if (id < 0 || id >= this.nextId || !this.alive[id]) return null;
    return { id, from: this.source(id), to: this.target(id), relation: this.relations[this.relationOf[id]!]!, weight: this.weight[id]!, properties: this.extra.get(id) ?? NO_PROPERTIES };
  }

  /**
   * All edges with their ids as they are now (snapshots), written later: the columns copied, the
   * properties taken by reference (they are replaced, never changed in place).
   */
  capture(): Captured {
    const n = this.nextId;
    const relations = this.relations.slice();
    const columns = [this.from.slice(0, n), this.to.slice(0, n), this.weight.slice(0, n), this.relationOf.slice(0, n), this.alive.slice(0, n)];
    const extra = [...this.extra];
    const uuids = this.uuids.slice();
    return function* (w) {
      w.u32(n).u32(relations.length);
      for (const r of relations) w.str(r);
      for (const column of columns) yield* rawPieces(w, column, 0, n);
      w.u32(extra.length);
      for (const [k, [id, props]] of extra.entries()) {
        w.f64(id).str(payloadText(props));
        if (k % PROPERTIES_PER_PIECE === 0) yield;
      }
      const bytes = new Uint8Array(UUID_BYTES);
      w.u32(uuids.length);
      for (const uuid of uuids) {
        uuidIntoBytes(uuid, bytes);
        w.bytes(bytes);
      }
    };
  }

  /**
   * Fills an empty store from capture's bytes; adjacency lists come out in id order, as they
   * were. Snapshot version 1 kept float32 weights and no relationship properties; versions
   * before 3 had no UUID endpoints.
   */
  readFrom(r: ByteReader, version: number): void {
    const n = r.u32();
    for (let k = r.u32(), i = 0; i < k; i++) this.intern(r.str());
    while (this.from.length < n) this.grow();
    this.nextId = n;
    readRaw(r, this.from, n);
    readRaw(r, this.to, n);
    if (version >= 2) readRaw(r, this.weight, n);
    else {
      const weights = new Float32Array(n);
      readRaw(r, weights, n);
      this.weight.set(weights);
    }
    readRaw(r, this.relationOf, n);
    readRaw(r, this.alive, n);
    if (version >= 2) for (let k = r.u32(), i = 0; i < k; i++) {
      const id = r.f64();
      this.extra.set(id, parsePayloadText(r.str(), `the properties of relationship ${id}`));
    }
    if (version >= 3) for (let k = r.u32(), i = 0; i < k; i++) this.code(uuidFromBytes(r.bytes(UUID_BYTES)));
    for (let id = 0; id < n; id++) {
      if (!this.alive[id]) continue;
      GraphStore.link(this.out, this.source(id), id);
      GraphStore.link(this.in, this.target(id), id);
      this.edgeCount++;
    }
  }

  /** Every live edge, in id order. */
  /**
   * The live edges as they are now, each made when asked for (exports): the columns copied, the
   * properties taken by reference (they are replaced, never changed in place).
   */
  captureEdges(): { count: number; edge(k: number): Edge } {
    const n = this.nextId;
    const ids: number[] = [];
    for (let id = 0; id < n; id++) if (this.alive[id]) ids.push(id);
    const [from, to, weight, relationOf] = [this.from.slice(0, n), this.to.slice(0, n), this.weight.slice(0, n), this.relationOf.slice(0, n)];
    const relations = this.relations.slice();
    const extra = new Map<number, Payload>();
    for (const [id, props] of this.extra) extra.set(id, props);
    // A point's code never changes meaning (the UUID table is only appended to).
    const pointOf = (code: number): PointId => this.pointOf(code);
    return {
      count: ids.length,
      edge: (k) => {
        const id = ids[k]!;
        return { id, from: pointOf(from[id]!), to: pointOf(to[id]!), relation: relations[relationOf[id]!]!, weight: weight[id]!, properties: extra.get(id) ?? NO_PROPERTIES };
      },
    };
  }

  allEdges(): Edge[] {
    const out: Edge[] = [];
    for (let id = 0; id < this.nextId; id++) if (this.alive[id]) out.push(this.edge(id)!);
    return out;
  }

  outgoing(point: PointId): readonly number[] {
    return this.out.get(point) ?? NO_EDGES;
  }

  incoming(point: PointId): readonly number[] {
    return this.in.get(point) ?? NO_EDGES;
  }

  /** The edges at a point in a direction, optionally of one relation. */
  edgesAt(point: PointId, direction: Direction, relation: string | null): Edge[] {
    const ids = direction === 'outgoing' ? this.outgoing(point) : direction === 'incoming' ? this.incoming(point) : [...this.outgoing(point), ...this.incoming(point)];
    const rel = relation === null ? -1 : (this.relationIds.get(relation) ?? -2);
    if (rel === -2) return [];
    const out: Edge[] = [];
    for (const id of ids) if (rel === -1 || this.relationOf[id] === rel) out.push(this.edge(id)!);
    return out;
  }

  /** The relation id of an edge, for filters that compare interned ids. */
  relationName(edge: number): string {
    return this.relations[this.relationOf[edge]!]!;
  }

  target(edge: number): PointId {
    return this.pointOf(this.to[edge]!);
  }

  source(edge: number): PointId {
    return this.pointOf(this.from[edge]!);
  }

}
