import type { Payload, PointId } from '../../storage/events/types.js';
import { dropPropertyTypes, propertyTypesOf, setPropertyTypes, type PropertyType } from '../../storage/property-types.js';
import type { Expr, PatternPart, SetItem } from './ast.js';
import { runtimeError } from './errors.js';
import { isNumber, numberOf, type CypherNumber } from './numbers.js';
import { evaluate, type EvalContext, type Row } from './evaluate.js';
import type { NodeData } from './graph-tx.js';
import { propertiesOf } from './functions.js';
import { storable } from './stored-values.js';
import { ENTITY_BYTES, sizeOf } from './sizes.js';
import { isEntity, isMap, NodeRef, PathValue, RelRef, setEntry, typeName, VirtualNode, VirtualRel, type Value } from './values.js';

const typeError = (message: string) => runtimeError('TypeError', 'InvalidPropertyType', message);

/** The embedding property as a vector of the collection's dimension. */
function vectorFrom(v: Value, dim: number): Float32Array {
  if (!Array.isArray(v) || v.length !== dim || !v.every((x) => isNumber(x) && Number.isFinite(numberOf(x)))) {
    throw typeError(`embedding must be a list of ${dim} finite numbers (the collection's dimension)`);
  }
  return Float32Array.from(v as CypherNumber[], numberOf);
}

/** Stores a property value in `payload`, and its type, when JSON loses it, in `types`. */
function setProperty(payload: Payload, types: Record<string, PropertyType>, key: string, v: Value): void {
  const { json, type } = storable(key, v);
  setEntry(payload, key, json);
  if (type === null) delete types[key];
  else setEntry(types, key, type);
}

const VECTOR_KEY = 'embedding';

const gone = (kind: string, id: PointId) => runtimeError('EntityNotFound', 'DeletedEntityAccess', `${kind} ${id} was deleted earlier in this query`);

/** A virtual node or relationship is in no store (Neo4j answers EntityNotFound for its negative id too). */
function refuseVirtual(v: Value, clause: string): void {
  if (v instanceof VirtualNode || v instanceof VirtualRel) {
    const kind = v instanceof VirtualNode ? 'node' : 'relationship';
    throw runtimeError('EntityNotFound', 'VirtualEntityWrite', `${clause} cannot change ${kind} ${v.id}: it is a virtual ${kind} a procedure made up (db.schema.visualization, apoc.meta.graph), not one in the database`);
  }
}

/**
 * CREATE, SET, REMOVE and DELETE for one row, into the query's GraphTx overlay. Every node or
 * relationship written is charged to the memory budget: the overlay holds it until the end.
 */
export class Writer {
  constructor(private readonly ctx: EvalContext) {}

  /** The payload of a new node or relationship (each property counted as set). */
  private payloadOf(m: Value): Payload {
    const out: Payload = {};
    const types: Record<string, PropertyType> = {};
    if (!isMap(m)) throw typeError('properties must be a map');
    for (const [k, v] of Object.entries(m)) {
      if (v === null) continue;
      this.ctx.tx.counts.propertiesSet++;
      if (k === 'embedding') setEntry(out, k, v);
      else setProperty(out, types, k, v);
    }
    this.ctx.guard.charge(ENTITY_BYTES + sizeOf(out as Value), 'the properties written');
    return setPropertyTypes(out, types);
  }

  /** A new node with these labels and properties (`embedding`: its vector). */
  createNode(labels: string[], properties: Value): PointId {
    const payload = this.payloadOf(properties);
    let vector: Float32Array | null = null;
    if (payload.embedding !== undefined) {
      vector = vectorFrom(payload.embedding as Value, this.ctx.tx.collection.config.size);
      delete payload.embedding;
    }
    return this.ctx.tx.createNode([...new Set(labels)], payload, vector);
  }

  /** A new relationship (`weight` among the properties, 1 when absent). */
  createRelationship(from: PointId, to: PointId, type: string, properties: Value): number {
    const props = this.payloadOf(properties);
    let weight = 1;
    if (props.weight !== undefined) {
      if (typeof props.weight !== 'number') throw typeError('weight must be a number');
      weight = props.weight;
      delete props.weight;
      dropPropertyTypes(props, ['weight']);
    }
    return this.ctx.tx.createEdge(from, to, type, weight, props);
  }

  create(part: PatternPart, row: Row): void {
    const { tx } = this.ctx;
    const ids = part.nodes.map((n) => {
      const existing = n.variable === null ? undefined : row[n.variable];
      if (existing !== undefined && existing !== null) {
        refuseVirtual(existing, 'CREATE');
        if (!(existing instanceof NodeRef)) throw typeError(`variable \`${n.variable}\` is a ${typeName(existing)}, not a node`);
        if (!tx.hasNode(existing.id)) throw runtimeError('EntityNotFound', 'DeletedEntityAccess', `node ${existing.id} was deleted earlier in this query`);
        return existing.id;
      }
      if (existing === null) throw runtimeError('SemanticError', 'CreateOnNull', `cannot create a relationship to \`${n.variable}\`, which is null`);
      const id = this.createNode(n.labels, n.properties ? evaluate(n.properties, row, this.ctx) : {});
      if (n.variable) setEntry(row, n.variable, new NodeRef(id));
      return id;
    });
    const rels: number[] = [];
    part.rels.forEach((r, i) => {
      const [from, to] = r.direction === 'in' ? [ids[i + 1]!, ids[i]!] : [ids[i]!, ids[i + 1]!];
      const id = this.createRelationship(from, to, r.types[0]!, r.properties ? evaluate(r.properties, row, this.ctx) : {});
      rels.push(id);
      if (r.variable) setEntry(row, r.variable, new RelRef(id));
    });
    if (part.pathVariable) setEntry(row, part.pathVariable, new PathValue(ids, rels));
  }

  /**
   * SET n.p = v, SET n = {map}, SET n += {map}, SET n:L, REMOVE n.p (a null value), REMOVE n:L.
   * A null value removes a property. `embedding` is the node's vector and `weight` the
   * relationship's weight; `SET n = {map}` replaces the other properties and leaves those two
   * unless the map names them.
   */
  set(item: SetItem, row: Row, removing: boolean): void {
    const { tx } = this.ctx;
    const target = evaluate(item.target, row, this.ctx);
    if (target === null) return;
    refuseVirtual(target, removing ? 'REMOVE' : 'SET');
    if (item.kind === 'labels') return this.setLabels(target, item.labels, removing);
    const value = item.value ? evaluate(item.value, row, this.ctx) : null;
    let assignments: [string, Value][];
    if (item.kind === 'property') assignments = [[item.key, value]];
    else {
      const map = isEntity(value) ? propertiesOf(value, tx) : value;
      if (!isMap(map)) throw typeError(`SET ${item.kind === 'replace' ? '=' : '+='} takes a map, got a ${typeName(value)}`);
      assignments = Object.entries(map);
    }
    this.assign(target, assignments, item.kind === 'replace');
  }

  /** Adds (or, `removing`, takes away) labels of a node. */
  setLabels(target: Value, labels: readonly string[], removing: boolean): void {
    refuseVirtual(target, removing ? 'REMOVE' : 'SET');
    if (!(target instanceof NodeRef)) throw typeError(`labels belong to nodes, not a ${typeName(target)}`);
    const data = this.ctx.tx.node(target.id);
    if (!data) throw gone('node', target.id);
    const next = removing ? data.labels.filter((l) => !labels.includes(l)) : [...new Set([...data.labels, ...labels])];
    // Only labels the node gains or loses count.
    if (removing) this.ctx.tx.counts.labelsRemoved += data.labels.length - next.length;
    else this.ctx.tx.counts.labelsAdded += next.length - data.labels.length;
    this.ctx.tx.updateNode(target.id, { ...data, labels: next });
  }

  /** Sets (a null value: removes) properties of a node or relationship; `replace` drops the others first. */
  assign(target: Value, assignments: [string, Value][], replace: boolean): void {
    const { tx } = this.ctx;
    refuseVirtual(target, 'SET');
    if (target instanceof NodeRef) {
      const data = tx.node(target.id);
      if (!data) throw gone('node', target.id);
      const next: NodeData = { ...data, payload: replace ? {} : { ...data.payload } };
      const types: Record<string, PropertyType> = replace ? {} : { ...propertyTypesOf(data.payload) };
      this.countSet(data.payload, next.vector !== null ? VECTOR_KEY : null, assignments, replace);
      for (const [key, v] of assignments) {
        if (key === 'embedding') {
          next.vector = v === null ? null : vectorFrom(v, tx.collection.config.size);
          next.vectorChanged = true;
        } else if (v === null) {
          delete next.payload[key];
          delete types[key];
        } else setProperty(next.payload, types, key, v);
      }
      setPropertyTypes(next.payload, types);
      this.ctx.guard.charge(ENTITY_BYTES + sizeOf(next.payload as Value), 'the properties written');
      tx.updateNode(target.id, next);
    } else if (target instanceof RelRef) {
      const e = tx.edge(target.id);
      if (!e) throw gone('relationship', target.id);
      const next = { ...e, properties: replace ? {} : { ...e.properties } };
      const types: Record<string, PropertyType> = replace ? {} : { ...propertyTypesOf(e.properties) };
      this.countSet(e.properties, 'weight', assignments, replace);
      for (const [key, v] of assignments) {
        if (key === 'weight') {
          if (!isNumber(v) || !Number.isFinite(numberOf(v))) throw typeError('weight must be a finite number (every relationship has one)');
          next.weight = numberOf(v);
        } else if (v === null) {
          delete next.properties[key];
          delete types[key];
        } else setProperty(next.properties, types, key, v);
      }
      setPropertyTypes(next.properties, types);
      this.ctx.guard.charge(ENTITY_BYTES + sizeOf(next.properties as Value), 'the properties written');
      tx.updateEdge(target.id, next);
    } else {
      throw typeError(`SET needs a node or relationship, got a ${typeName(target)}`);
    }
  }

  /**
   * Counts a SET as Neo4j does: each value written is a property set, even one equal to the
   * old; a null (or, replacing, a property the map leaves out) only when it removes a property
   * there. `kept`: the property beside the payload (`embedding` of a node with a vector, `weight`).
   */
  private countSet(before: Payload, kept: string | null, assignments: [string, Value][], replace: boolean): void {
    const present = new Set(Object.keys(before));
    if (kept !== null) present.add(kept);
    const written = new Set<string>();
    let n = 0;
    for (const [key, v] of assignments) {
      if (v !== null) written.add(key);
      if (v !== null || present.has(key)) n++;
      if (v === null) present.delete(key);
      else present.add(key);
    }
    if (replace) for (const key of Object.keys(before)) if (present.has(key) && !written.has(key)) n++;
    this.ctx.tx.counts.propertiesSet += n;
  }

  delete(e: Expr, row: Row, detach: boolean): void {
    const { tx } = this.ctx;
    const v = evaluate(e, row, this.ctx);
    if (v === null) return;
    refuseVirtual(v, 'DELETE');
    this.ctx.guard.charge(ENTITY_BYTES, 'the deletions');
    if (v instanceof NodeRef) tx.deleteNode(v.id, detach);
    else if (v instanceof RelRef) tx.deleteEdge(v.id);
    else if (v instanceof PathValue) {
      for (const r of v.rels) tx.deleteEdge(r);
      for (const n of v.nodes) tx.deleteNode(n, detach);
    } else throw runtimeError('TypeError', 'InvalidArgumentType', `DELETE takes nodes, relationships or paths, got a ${typeName(v)}`);
  }
}
