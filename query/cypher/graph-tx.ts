import type { Collection } from '../../storage/collection.js';
import type { GraphChange, Payload, PointId } from '../../storage/events/types.js';
import { runtimeError } from './errors.js';
import { SchemaTx } from './schema.js';

export interface NodeData {
  labels: readonly string[];
  payload: Payload;
  /** For a stored node, a view into the store's memory: read it, never keep it. */
  vector: Float32Array | null;
  /** Set when the query gave the node a new vector (its own array). */
  vectorChanged?: boolean;
}

/**
 * What a query or transaction did, counted as Neo4j counts each operation (not the net change):
 * `SET n.a = n.a` sets a property, a node created then deleted is one of each.
 */
export interface UpdateCounts {
  nodesCreated: number;
  nodesDeleted: number;
  relationshipsCreated: number;
  relationshipsDeleted: number;
  propertiesSet: number;
  labelsAdded: number;
  labelsRemoved: number;
}

export const noUpdates = (): UpdateCounts => ({ nodesCreated: 0, nodesDeleted: 0, relationshipsCreated: 0, relationshipsDeleted: 0, propertiesSet: 0, labelsAdded: 0, labelsRemoved: 0 });

export interface EdgeData {
  from: PointId;
  to: PointId;
  type: string;
  weight: number;
  properties: Payload;
}

/**
 * A query's view of one collection's graph: reads go to the collection's views, writes go to an
 * overlay that later reads see, so a write query sees its own changes. `changes()` turns the
 * overlay into the primitive changes of one log event; nothing touches the views until then.
 */
export class GraphTx {
  /** Node candidates looked at (stats.nodes_scanned). */
  scanned = 0;
  private readonly nodes = new Map<PointId, NodeData | null>();
  private readonly edges = new Map<number, EdgeData | null>();
  private readonly createdNodes: PointId[] = [];
  private readonly createdEdges: number[] = [];
  private readonly outAdded = new Map<PointId, number[]>();
  private readonly inAdded = new Map<PointId, number[]>();
  /** The writes so far (the caller counts property and label changes, which it knows item by item). */
  readonly counts: UpdateCounts = noUpdates();
  /** What deleted nodes and edges held, so a RETURN after DELETE can still show them. */
  private readonly tombstones = new Map<string, NodeData | EdgeData>();
  private nextNode: number;
  private nextEdge: number;

  /** Indexes and constraints created or dropped by this query or transaction. */
  schema: SchemaTx;

  /**
   * `provisional`: the collection stands in for a database that does not exist yet (empty, not
   * in the engine); the caller creates the real one before it logs a write.
   */
  constructor(public collection: Collection, public provisional = false) {
    this.schema = new SchemaTx(collection);
    this.nextNode = collection.nextNodeId;
    this.nextEdge = collection.graph.nextEdgeId;
  }

  /**
   * Moves an overlay that holds no writes onto the collection as it stands now (after writes
   * logged beside it: apoc.periodic's batches), so that ids it hands out later are still free.
   */
  catchUp(collection: Collection): void {
    if (this.dirty || this.schema.dirty) throw new Error('an overlay with writes cannot move');
    this.collection = collection;
    this.provisional = false;
    this.schema = new SchemaTx(collection);
    this.nextNode = collection.nextNodeId;
    this.nextEdge = collection.graph.nextEdgeId;
  }

  get dirty(): boolean {
    return this.nodes.size > 0 || this.edges.size > 0;
  }

  /** Whether this query or transaction created, changed or deleted a node that carries one of the labels, or carried one before. */
  writesNodesWith(labels: readonly string[]): boolean {
    const { store } = this.collection;
    for (const [id, data] of this.nodes) {
      if (data?.labels.some((l) => labels.includes(l))) return true;
      const slot = store.slotOf(id);
      if (slot >= 0 && store.labels[slot]!.some((l) => labels.includes(l))) return true;
    }
    return false;
  }

  // ---- nodes ----

  node(id: PointId): NodeData | null {
    const o = this.nodes.get(id);
    if (o !== undefined) return o;
    const { store } = this.collection;
    const slot = store.slotOf(id);
    if (slot < 0) return null;
    const data: NodeData = { labels: store.labels[slot]!, payload: store.payloads[slot]!, vector: null };
    if (!store.hasVector[slot]) return data;
    if (!store.onDisk) data.vector = store.vectorOf(slot);
    // Floats on disk are read from the file only when the query looks at the vector.
    else Object.defineProperty(data, 'vector', { enumerable: true, configurable: true, get: () => store.vectorOf(slot) });
    return data;
  }

  hasNode(id: PointId): boolean {
    const o = this.nodes.get(id);
    return o !== undefined ? o !== null : this.collection.store.has(id);
  }

  /** Labels of a live node (the fast path of pattern matching). */
  labelsOf(id: PointId): readonly string[] | null {
    if (this.nodes.size > 0 && this.nodes.has(id)) return this.nodes.get(id)?.labels ?? null;
    const { store } = this.collection;
    const slot = store.slotOf(id);
    return slot < 0 ? null : store.labels[slot]!;
  }

  payloadOf(id: PointId): Payload | null {
    if (this.nodes.size > 0 && this.nodes.has(id)) return this.nodes.get(id)?.payload ?? null;
    const { store } = this.collection;
    const slot = store.slotOf(id);
    return slot < 0 ? null : store.payloads[slot]!;
  }

  deletedNode(id: PointId): NodeData | null {
    return (this.tombstones.get('n' + id) as NodeData | undefined) ?? null;
  }

  /** Every live node id: the collection's, minus deletions, plus creations. */
  allNodes(): PointId[] {
    const ids: PointId[] = [];
    const { store } = this.collection;
    for (let slot = 0; slot < store.slotCount; slot++) if (store.state[slot] === 1) ids.push(store.idOf(slot));
    if (this.nodes.size === 0) return ids;
    return [...ids.filter((id) => this.nodes.get(id) !== null), ...this.createdNodes.filter((id) => this.nodes.get(id) !== null)];
  }

  /** Live nodes carrying a label. */
  nodesWithLabel(label: string): PointId[] {
    const base = [...this.collection.labelIndex.pointsWith(label)];
    if (this.nodes.size === 0) return base;
    const out = base.filter((id) => this.labelsOf(id)?.includes(label) === true);
    for (const [id, data] of this.nodes) if (data && data.labels.includes(label) && !this.collection.labelIndex.pointsWith(label).has(id)) out.push(id);
    return out;
  }

  /**
   * Candidates for `key = value` (a scalar): the payload index's nodes the overlay left alone,
   * and the overlay's nodes that hold it. Loading with MERGE stays one index lookup per row
   * however many nodes the query has written so far.
   */
  nodesWithValue(key: string, value: string | number | boolean): PointId[] {
    const { store, payloadIndex } = this.collection;
    const base = [...payloadIndex.lookup(key, value)].map((slot) => store.idOf(slot));
    if (this.nodes.size === 0) return base;
    const out = base.filter((id) => !this.nodes.has(id));
    for (const [id, data] of this.nodes) if (data && Object.hasOwn(data.payload, key) && data.payload[key] === value) out.push(id);
    return out;
  }

  /** How many nodes carry the label (for choosing where a match starts). */
  labelCount(label: string): number {
    return this.collection.labelIndex.pointsWith(label).size;
  }

  // ---- edges ----

  edge(id: number): EdgeData | null {
    const o = this.edges.get(id);
    if (o !== undefined) return o;
    const e = this.collection.graph.edge(id);
    return e && { from: e.from, to: e.to, type: e.relation, weight: e.weight, properties: e.properties };
  }

  deletedEdge(id: number): EdgeData | null {
    return (this.tombstones.get('r' + id) as EdgeData | undefined) ?? null;
  }

  edgeType(id: number): string {
    if (this.edges.size > 0 && this.edges.has(id)) return this.edges.get(id)?.type ?? '';
    return this.collection.graph.relationName(id);
  }

  edgeFrom(id: number): PointId {
    if (this.edges.size > 0 && this.edges.has(id)) return this.edges.get(id)?.from ?? -1;
    return this.collection.graph.source(id);
  }

  edgeTo(id: number): PointId {
    if (this.edges.size > 0 && this.edges.has(id)) return this.edges.get(id)?.to ?? -1;
    return this.collection.graph.target(id);
  }

  outgoing(node: PointId): readonly number[] {
    return this.adjacent(this.collection.graph.outgoing(node), this.outAdded.get(node));
  }

  incoming(node: PointId): readonly number[] {
    return this.adjacent(this.collection.graph.incoming(node), this.inAdded.get(node));
  }

  private adjacent(base: readonly number[], added: number[] | undefined): readonly number[] {
    if (this.edges.size === 0) return base;
    const live = base.filter((e) => this.edges.get(e) !== null);
    if (!added) return live;
    return [...live, ...added.filter((e) => this.edges.get(e) !== null)];
  }

  // ---- writes ----

  createNode(labels: string[], payload: Payload, vector: Float32Array | null): PointId {
    const id = this.nextNode++;
    this.nodes.set(id, { labels, payload, vector });
    this.createdNodes.push(id);
    this.counts.nodesCreated++;
    this.counts.labelsAdded += labels.length;
    return id;
  }

  /** Replaces a live node's data (copy-on-write by the caller). */
  updateNode(id: PointId, data: NodeData): void {
    if (!this.hasNode(id)) throw runtimeError('EntityNotFound', 'DeletedEntityAccess', `node ${id} was deleted earlier in this query`);
    this.nodes.set(id, data);
  }

  /** The live nodes this query or transaction created or changed, with their data now. */
  *writtenNodes(): Iterable<[PointId, NodeData]> {
    for (const [id, data] of this.nodes) if (data) yield [id, data];
  }

  /** Whether the overlay holds this node (written or deleted): the collection's data for it is stale. */
  overlays(id: PointId): boolean {
    return this.nodes.has(id);
  }

  deleteNode(id: PointId, detach: boolean): void {
    const data = this.node(id);
    if (!data) return;
    if (detach) for (const e of [...this.outgoing(id), ...this.incoming(id)]) this.deleteEdge(e);
    this.tombstones.set('n' + id, data);
    this.nodes.set(id, null);
    this.counts.nodesDeleted++;
  }

  createEdge(from: PointId, to: PointId, type: string, weight: number, properties: Payload): number {
    const id = this.nextEdge++;
    this.edges.set(id, { from, to, type, weight, properties });
    this.createdEdges.push(id);
    this.counts.relationshipsCreated++;
    const link = (lists: Map<PointId, number[]>, node: PointId) => {
      const list = lists.get(node);
      if (list) list.push(id);
      else lists.set(node, [id]);
    };
    link(this.outAdded, from);
    link(this.inAdded, to);
    return id;
  }

  updateEdge(id: number, data: EdgeData): void {
    if (!this.edge(id)) throw runtimeError('EntityNotFound', 'DeletedEntityAccess', `relationship ${id} was deleted earlier in this query`);
    this.edges.set(id, data);
  }

  deleteEdge(id: number): void {
    const data = this.edge(id);
    if (!data) return;
    this.tombstones.set('r' + id, data);
    this.edges.set(id, null);
    this.counts.relationshipsDeleted++;
  }

  /** Nodes deleted without DETACH that still have relationships at the end of the query. */
  connectedDeletedNode(): PointId | null {
    for (const [id, data] of this.nodes) {
      if (data !== null || (!this.collection.store.has(id) && !this.createdNodes.includes(id))) continue;
      if (this.outgoing(id).length > 0 || this.incoming(id).length > 0) return id;
    }
    return null;
  }

  /** The overlay as primitive changes, in an order whose every step is valid on its own. */
  changes(): GraphChange[] {
    const out: GraphChange[] = [];
    const created = new Set(this.createdNodes);
    const point = (id: PointId, d: NodeData) => ({ id, vector: d.vector, payload: d.payload, labels: [...d.labels] });
    for (const id of this.createdNodes) {
      const d = this.nodes.get(id);
      if (d) out.push({ kind: 'create_node', point: point(id, d) });
    }
    for (const [id, d] of this.nodes) {
      if (!d || created.has(id)) continue;
      // A node whose vector the query left alone keeps it (and its place in the index).
      if (d.vectorChanged) out.push({ kind: 'update_node', point: point(id, d) });
      else out.push({ kind: 'set_node', id, payload: d.payload, labels: [...d.labels] });
    }
    const createdEdges = new Set(this.createdEdges);
    for (const [id, d] of this.edges) if (d === null && !createdEdges.has(id)) out.push({ kind: 'delete_edge', id });
    for (const id of this.createdEdges) {
      const d = this.edges.get(id);
      if (d) out.push({ kind: 'create_edge', id, edge: { from: d.from, to: d.to, relation: d.type, weight: d.weight, properties: d.properties } });
    }
    for (const [id, d] of this.edges) if (d && !createdEdges.has(id)) out.push({ kind: 'update_edge', id, weight: d.weight, properties: d.properties });
    for (const [id, d] of this.nodes) if (d === null && !created.has(id)) out.push({ kind: 'delete_node', id });
    return out;
  }
}
