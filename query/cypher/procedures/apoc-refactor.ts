import type { PointId } from '../../../storage/events/types.js';
import { apocFailure, javaText } from '../apoc-functions.js';
import type { EvalContext } from '../evaluate.js';
import { propertiesOf } from '../functions.js';
import type { GraphTx } from '../graph-tx.js';
import { isFloat, isNumber, numberOf } from '../numbers.js';
import { ENTITY_BYTES } from '../sizes.js';
import { isMap, keyOf, NodeRef, RelRef, typeName, type MapValue, type Value } from '../values.js';
import type { Writer } from '../writes.js';
import type { Procedure, ProcedureRow } from './types.js';

/**
 * apoc.refactor.*: labels and types renamed, a relationship's type changed, nodes merged into
 * one or cloned. Every change goes into the query's overlay through the Writer (or the overlay
 * itself, for a relationship copied whole), so it is logged, counted and constraint-checked
 * with the rest of the query. A relationship cannot change type in place: as in APOC it is
 * deleted and made again (a new id), with its properties.
 */

type Fail = (message: string) => Error;

function refactor(display: string, minArgs: number, maxArgs: number, outputs: string[], run: (args: Value[], ctx: EvalContext, writer: Writer, fail: Fail) => ProcedureRow[]): Procedure {
  const fail = (m: string) => apocFailure('procedure', display, m);
  return { name: display.toLowerCase(), display, mode: 'write', minArgs, maxArgs, outputs, run: (args, ctx, writer) => run(args, ctx, writer, fail) };
}

function name(v: Value | undefined, what: string, fail: Fail): string {
  if (typeof v !== 'string' || v === '') throw fail(`${what} must be a non-empty string, got ${v === undefined || v === null ? 'null' : typeName(v)}`);
  return v;
}

function listOf<T>(v: Value | undefined, kind: new (id: never) => T, what: string, fail: Fail): T[] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((x) => {
    if (!(x instanceof kind)) throw fail(`${what} must be a list of ${kind === (NodeRef as unknown) ? 'nodes' : 'relationships'}, got ${x === null ? 'null' : `a ${typeName(x)}`} in it`);
    return x;
  });
}

function configOf(v: Value | undefined, known: readonly string[], fail: Fail): MapValue {
  if (v === undefined || v === null) return {};
  if (!isMap(v)) throw fail(`the configuration must be a map, got ${typeName(v)}`);
  for (const key of Object.keys(v)) if (!known.includes(key)) throw fail(`unknown configuration key '${key}' (this procedure takes ${known.join(', ')})`);
  return v;
}

function flag(config: MapValue, key: string, fallback: boolean, fail: Fail): boolean {
  const v = config[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw fail(`${key} must be a boolean, got ${typeName(v)}`);
  return v;
}

/** A node's relationships, a loop once, as they stand before any change. */
function relationshipsAt(tx: GraphTx, node: PointId): number[] {
  const out = [...tx.outgoing(node)];
  for (const e of tx.incoming(node)) if (tx.edgeFrom(e) !== node) out.push(e);
  return out;
}

/** A relationship made again between other nodes or with another type, its properties and weight copied as stored. */
function copyRelationship(ctx: EvalContext, id: number, from: PointId, to: PointId, type: string): number {
  const e = ctx.tx.edge(id)!;
  ctx.guard.charge(ENTITY_BYTES, 'the relationships apoc.refactor makes');
  const copy = ctx.tx.createEdge(from, to, type, e.weight, { ...e.properties });
  ctx.tx.counts.propertiesSet += Object.keys(propertiesOf(new RelRef(id), ctx.tx)).length;
  return copy;
}

// ---- rename.label, rename.type ----

const RENAME_OUTPUTS = ['batches', 'total', 'timeTaken', 'committedOperations', 'failedOperations', 'failedBatches', 'retries', 'errorMessages', 'batch', 'operations', 'constraints', 'indexes'];

/** APOC runs a rename as apoc.periodic.iterate (100000 a batch, at least one batch); here it is part of the query's one write. */
function renameResult(total: number, batchSize: number): ProcedureRow {
  const batches = Math.max(1, Math.ceil(total / batchSize));
  return {
    batches,
    total,
    timeTaken: 0,
    committedOperations: total,
    failedOperations: 0,
    failedBatches: 0,
    retries: 0,
    errorMessages: {},
    batch: { total: batches, failed: 0, committed: batches, errors: {} },
    operations: { total, failed: 0, committed: total, errors: {} },
    constraints: [],
    indexes: [],
  };
}

const BATCH_KEYS = ['batchSize', 'concurrency', 'retries', 'parallel', 'batchMode'];

function batchSizeOf(config: MapValue, fail: Fail): number {
  const v = config.batchSize;
  if (v === undefined || v === null) return 100000;
  if (!isNumber(v) || !Number.isInteger(numberOf(v)) || numberOf(v) < 1) throw fail('batchSize must be a positive integer');
  return numberOf(v);
}

function renameLabel([oldLabel, newLabel, nodes]: Value[], ctx: EvalContext, writer: Writer, fail: Fail): ProcedureRow[] {
  const from = name(oldLabel, 'the old label', fail);
  const to = name(newLabel, 'the new label', fail);
  const given = listOf(nodes, NodeRef, 'the nodes', fail);
  const targets = given.length > 0 ? given.filter((n) => ctx.tx.labelsOf(n.id)?.includes(from)) : ctx.tx.nodesWithLabel(from).map((id) => new NodeRef(id));
  for (const node of targets) {
    ctx.guard.step();
    writer.setLabels(node, [from], true);
    writer.setLabels(node, [to], false);
  }
  return [renameResult(targets.length, 100000)];
}

function renameType([oldType, newType, rels, config]: Value[], ctx: EvalContext, _writer: Writer, fail: Fail): ProcedureRow[] {
  const from = name(oldType, 'the old type', fail);
  const to = name(newType, 'the new type', fail);
  const batchSize = batchSizeOf(configOf(config, BATCH_KEYS, fail), fail);
  const { tx } = ctx;
  const given = listOf(rels, RelRef, 'the relationships', fail);
  const targets =
    given.length > 0
      ? given.map((r) => r.id).filter((e) => tx.edgeType(e) === from)
      : tx.allNodes().flatMap((n) => tx.outgoing(n).filter((e) => tx.edgeType(e) === from));
  for (const e of targets) {
    ctx.guard.step();
    copyRelationship(ctx, e, tx.edgeFrom(e), tx.edgeTo(e), to);
    tx.deleteEdge(e);
  }
  return [renameResult(targets.length, batchSize)];
}

/** rename.nodeProperty / rename.typeProperty: the value moved to the new key on each node or relationship that has the old one. */
function renameProperty(rel: boolean) {
  return ([oldKey, newKey, targets, config]: Value[], ctx: EvalContext, writer: Writer, fail: Fail): ProcedureRow[] => {
    const from = name(oldKey, 'the old property name', fail);
    const to = name(newKey, 'the new property name', fail);
    const batchSize = batchSizeOf(configOf(config, BATCH_KEYS, fail), fail);
    const { tx } = ctx;
    const given: (NodeRef | RelRef)[] = rel ? listOf(targets, RelRef, 'the relationships', fail) : listOf(targets, NodeRef, 'the nodes', fail);
    const all = given.length > 0 ? given : rel ? tx.allNodes().flatMap((n) => tx.outgoing(n).map((e) => new RelRef(e))) : tx.allNodes().map((id) => new NodeRef(id));
    let total = 0;
    for (const target of all) {
      ctx.guard.step();
      const value = propertiesOf(target, tx)[from];
      if (value === undefined || value === null) continue;
      writer.assign(target, [[to, value], [from, null]], false);
      total++;
    }
    return [renameResult(total, batchSize)];
  };
}

// ---- setType, invert ----

function setType([rel, newType]: Value[], ctx: EvalContext, _writer: Writer, fail: Fail): ProcedureRow[] {
  if (rel === undefined || rel === null) return [];
  if (!(rel instanceof RelRef)) throw fail(`the relationship must be a relationship, got ${typeName(rel)}`);
  const type = name(newType, 'the new type', fail);
  const { tx } = ctx;
  if (!tx.edge(rel.id)) return [{ input: rel.id, output: null, error: `Relationship ${rel.id} was deleted earlier in this query` }];
  const output = copyRelationship(ctx, rel.id, tx.edgeFrom(rel.id), tx.edgeTo(rel.id), type);
  tx.deleteEdge(rel.id);
  return [{ input: rel.id, output: new RelRef(output), error: null }];
}

function invert([rel]: Value[], ctx: EvalContext, _writer: Writer, fail: Fail): ProcedureRow[] {
  if (rel === undefined || rel === null) return [];
  if (!(rel instanceof RelRef)) throw fail(`the relationship must be a relationship, got ${typeName(rel)}`);
  const { tx } = ctx;
  if (!tx.edge(rel.id)) return [{ input: rel.id, output: null, error: `Relationship ${rel.id} was deleted earlier in this query` }];
  const output = copyRelationship(ctx, rel.id, tx.edgeTo(rel.id), tx.edgeFrom(rel.id), tx.edgeType(rel.id));
  tx.deleteEdge(rel.id);
  return [{ input: rel.id, output: new RelRef(output), error: null }];
}

// ---- mergeNodes ----

const MERGE_KEYS = ['properties', 'mergeRels', 'produceSelfRel', 'preserveExistingSelfRels', 'singleElementAsArray'];
const MODES = ['overwrite', 'override', 'discard', 'combine'];

interface MergeConfig {
  /** Per property: a mode for every key (`.*`), or by key pattern (a regular expression, as APOC matches it). */
  modes: [RegExp | null, string][];
  given: boolean;
  mergeRels: boolean;
  produceSelfRel: boolean;
  preserveExistingSelfRels: boolean;
  singleElementAsArray: boolean;
}

function mergeConfig(v: Value | undefined, fail: Fail): MergeConfig {
  const config = configOf(v, MERGE_KEYS, fail);
  const props = config.properties;
  const mode = (m: Value) => {
    if (typeof m !== 'string' || !MODES.includes(m.toLowerCase())) throw fail(`properties must be one of ${MODES.join(', ')} (or a map of property names to them), got ${javaText(m)}`);
    return m.toLowerCase();
  };
  let modes: [RegExp | null, string][] = [[null, 'overwrite']];
  if (typeof props === 'string') modes = [[null, mode(props)]];
  else if (isMap(props)) modes = Object.entries(props).map(([key, m]) => [key === '.*' ? null : new RegExp(`^(?:${key})$`), mode(m)]);
  else if (props !== undefined && props !== null) throw fail(`properties must be a string or a map, got ${typeName(props)}`);
  return {
    modes,
    given: props !== undefined && props !== null,
    mergeRels: flag(config, 'mergeRels', false, fail),
    produceSelfRel: flag(config, 'produceSelfRel', true, fail),
    preserveExistingSelfRels: flag(config, 'preserveExistingSelfRels', true, fail),
    singleElementAsArray: flag(config, 'singleElementAsArray', false, fail),
  };
}

/** The mode for a property: relationships combine unless the configuration names one (as in APOC). */
function modeFor(conf: MergeConfig, key: string, rel: boolean): string {
  if (!conf.given && rel) return 'combine';
  for (const [pattern, m] of conf.modes) if (pattern?.test(key)) return m;
  return conf.modes.find(([pattern]) => pattern === null)?.[1] ?? 'overwrite';
}

/** `combine`: the old and new values as one list, each once; one value stays a value unless singleElementAsArray; mixed types become strings. */
function combined(old: Value, added: Value, conf: MergeConfig): Value {
  const seen = new Map<string, Value>();
  for (const v of [...(Array.isArray(old) ? old : [old]), ...(Array.isArray(added) ? added : [added])]) if (!seen.has(keyOf(v))) seen.set(keyOf(v), v);
  const values = [...seen.values()];
  if (values.length === 1 && !conf.singleElementAsArray) return values[0]!;
  const kind = (v: Value) => (isNumber(v) ? (isFloat(v) ? 'Float' : 'Integer') : typeName(v));
  return values.every((v) => kind(v) === kind(values[0]!)) ? values : values.map((v) => javaText(v));
}

function mergeProperties(ctx: EvalContext, writer: Writer, target: NodeRef | RelRef, properties: MapValue, conf: MergeConfig): void {
  const now = propertiesOf(target, ctx.tx);
  const assignments: [string, Value][] = [];
  for (const [key, value] of Object.entries(properties)) {
    const m = modeFor(conf, key, target instanceof RelRef);
    const has = Object.hasOwn(now, key) && now[key] !== null;
    if (m === 'overwrite' || m === 'override' || !has) assignments.push([key, value]);
    else if (m === 'combine') assignments.push([key, combined(now[key]!, value, conf)]);
  }
  if (assignments.length > 0) writer.assign(target, assignments, false);
}

/** One node merged into the target: its relationships moved, the target's parallel ones merged on request, its labels and properties added. */
function mergeInto(ctx: EvalContext, writer: Writer, source: PointId, target: PointId, conf: MergeConfig, keepSelfRels: Set<number>): void {
  const { tx } = ctx;
  const properties = propertiesOf(new NodeRef(source), tx);
  const labels = [...(tx.labelsOf(source) ?? [])];
  for (const e of relationshipsAt(tx, source)) {
    const from = tx.edgeFrom(e);
    const to = tx.edgeTo(e);
    if (!conf.produceSelfRel && from === to) {
      tx.deleteEdge(e);
      continue;
    }
    copyRelationship(ctx, e, from === source ? target : from, to === source ? target : to, tx.edgeType(e));
    tx.deleteEdge(e);
  }
  if (conf.mergeRels) {
    for (const outgoing of [true, false]) {
      const groups = new Map<string, number[]>();
      for (const e of outgoing ? tx.outgoing(target) : tx.incoming(target)) {
        if (keepSelfRels.has(e)) continue;
        const key = `${tx.edgeType(e)}\u0000${keyOf(tx.edgeFrom(e))}\u0000${keyOf(tx.edgeTo(e))}`;
        groups.set(key, [...(groups.get(key) ?? []), e]);
      }
      for (const [first, ...rest] of groups.values()) {
        if (tx.edgeFrom(first!) === tx.edgeTo(first!) && !conf.produceSelfRel) {
          for (const e of [first!, ...rest]) tx.deleteEdge(e);
          continue;
        }
        for (const e of rest) {
          const props = propertiesOf(new RelRef(e), tx);
          tx.deleteEdge(e);
          mergeProperties(ctx, writer, new RelRef(first!), props, conf);
        }
      }
    }
  }
  tx.deleteNode(source, false);
  if (labels.length > 0) writer.setLabels(new NodeRef(target), labels, false);
  mergeProperties(ctx, writer, new NodeRef(target), properties, conf);
}

function mergeNodes([nodes, config]: Value[], ctx: EvalContext, writer: Writer, fail: Fail): ProcedureRow[] {
  const list = listOf(nodes, NodeRef, 'the nodes', fail);
  if (list.length === 0) return [];
  const conf = mergeConfig(config, fail);
  const { tx } = ctx;
  const target = list[0]!.id;
  if (!tx.hasNode(target)) throw fail(`node ${String(target)} was deleted earlier in this query`);
  const keepSelfRels = new Set(conf.preserveExistingSelfRels ? relationshipsAt(tx, target).filter((e) => tx.edgeFrom(e) === tx.edgeTo(e)) : []);
  const seen = new Set<PointId>([target]);
  for (const { id } of list.slice(1)) {
    if (seen.has(id)) continue;
    seen.add(id);
    ctx.guard.step();
    // A node already gone is skipped, as APOC skips it.
    if (tx.hasNode(id)) mergeInto(ctx, writer, id, target, conf, keepSelfRels);
  }
  return [{ node: new NodeRef(target) }];
}

// ---- cloneNodes ----

function cloneNodes([nodes, withRelationships, skip]: Value[], ctx: EvalContext, writer: Writer, fail: Fail): ProcedureRow[] {
  const list = listOf(nodes, NodeRef, 'the nodes', fail);
  if (withRelationships !== undefined && withRelationships !== null && typeof withRelationships !== 'boolean') throw fail('withRelationships must be a boolean');
  if (skip !== undefined && skip !== null && !(Array.isArray(skip) && skip.every((s) => typeof s === 'string'))) throw fail('skipProperties must be a list of property names');
  const skipped = new Set((skip ?? []) as string[]);
  const { tx } = ctx;
  return list.map((node) => {
    ctx.guard.step();
    if (!tx.hasNode(node.id)) return { input: node.id, output: null, error: `Node ${String(node.id)} was deleted earlier in this query` };
    const properties = Object.fromEntries(Object.entries(propertiesOf(node, tx)).filter(([k]) => !skipped.has(k)));
    const clone = writer.createNode([...(tx.labelsOf(node.id) ?? [])], properties);
    if (withRelationships === true) {
      for (const e of relationshipsAt(tx, node.id)) {
        const from = tx.edgeFrom(e);
        const to = tx.edgeTo(e);
        copyRelationship(ctx, e, from === node.id ? clone : from, to === node.id ? clone : to, tx.edgeType(e));
      }
    }
    return { input: node.id, output: new NodeRef(clone), error: null };
  });
}

export const APOC_REFACTOR_PROCEDURES: Procedure[] = [
  refactor('apoc.refactor.rename.label', 2, 3, RENAME_OUTPUTS, renameLabel),
  refactor('apoc.refactor.rename.type', 2, 4, RENAME_OUTPUTS, renameType),
  refactor('apoc.refactor.rename.nodeProperty', 2, 4, RENAME_OUTPUTS, renameProperty(false)),
  refactor('apoc.refactor.rename.typeProperty', 2, 4, RENAME_OUTPUTS, renameProperty(true)),
  refactor('apoc.refactor.setType', 2, 2, ['input', 'output', 'error'], setType),
  refactor('apoc.refactor.invert', 1, 1, ['input', 'output', 'error'], invert),
  refactor('apoc.refactor.mergeNodes', 1, 2, ['node'], mergeNodes),
  refactor('apoc.refactor.cloneNodes', 1, 3, ['input', 'output', 'error'], cloneNodes),
];
