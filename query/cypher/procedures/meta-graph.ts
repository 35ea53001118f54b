import type { EvalContext } from '../evaluate.js';
import { indexLabels, type ConstraintDef } from '../schema.js';
import { VirtualNode, VirtualRel, type MapValue, type Value } from '../values.js';
import { mapArg } from './apoc.js';
import { sampleGraph, sortedEntries, type GraphSample, type Triple } from './graph-sample.js';
import { checkConfig, SAMPLING } from './schema-introspection.js';
import { procedureError, type Procedure, type ProcedureRow } from './types.js';

/**
 * The graph-shaped schema procedures: db.schema.visualization (Neo4j) and apoc.meta.graph,
 * apoc.meta.graphSample, apoc.meta.subGraph (APOC). Each answers one row, `nodes` and `relationships`: a virtual node
 * per label and a virtual relationship per (start label, type, end label) some relationship
 * joins. Neo4j pairs every start label of a type with every end label from its counts store,
 * and APOC then checks the pairs against the data; here every relationship is read, so each
 * pair is one that exists.
 */

/**
 * Virtual ids count down from -1 for the life of the thread, as Neo4j's and APOC's do for the
 * life of the server, so no two virtual entities one query meets share one (a Cypher replica's
 * thread keeps its own count).
 */
let lastNodeId = 0;
let lastRelId = 0;
const virtualNode = (label: string, properties: MapValue) => new VirtualNode(--lastNodeId, [label], properties);
const virtualRel = (type: string, start: VirtualNode, end: VirtualNode, properties: MapValue) => new VirtualRel(--lastRelId, type, start, end, properties);

const byPattern = (a: Triple, b: Triple) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.type < b.type ? -1 : a.type > b.type ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0);

/** A constraint as Neo4j describes it (its userDescription), the id of the index it owns included. */
function constraintText(c: ConstraintDef, ctx: EvalContext): string {
  const type = { UNIQUENESS: 'UNIQUENESS', NODE_KEY: 'NODE KEY', NODE_PROPERTY_EXISTENCE: 'NODE PROPERTY EXISTENCE' }[c.type];
  const owned = ctx.tx.schema.allIndexes().find((i) => i.owningConstraint === c.name);
  return `Constraint( id=${c.id}, name='${c.name}', type='${type}', schema=(:${c.label} {${c.properties.join(', ')}})${owned ? `, ownedIndex=${owned.id}` : ''} )`;
}

/**
 * db.schema.visualization(): a node per label in use with its `name`, `indexes` (each index on
 * the label that no constraint owns, as its properties joined by commas) and `constraints`
 * (their descriptions); a relationship per pattern with its `name`, the type.
 */
function visualization(ctx: EvalContext): ProcedureRow {
  const s = sampleGraph(ctx);
  const { schema } = ctx.tx;
  const nodes = new Map<string, VirtualNode>();
  for (const [label] of sortedEntries(s.byLabel)) {
    const indexes = schema.allIndexes().filter((i) => i.owningConstraint === null && indexLabels(i).includes(label)).map((i) => i.properties.join(','));
    const constraints = schema.allConstraints().filter((c) => c.label === label).map((c) => constraintText(c, ctx));
    nodes.set(label, virtualNode(label, { name: label, indexes, constraints }));
  }
  const relationships = [...s.triples.values()].sort(byPattern).map((t) => virtualRel(t.type, nodes.get(t.from)!, nodes.get(t.to)!, { name: t.type }));
  return { nodes: [...nodes.values()], relationships };
}

/** Which labels and relationship types apoc.meta.subGraph keeps: `null` for all. */
interface MetaFilter {
  labels: Set<string> | null;
  types: Set<string> | null;
  excludes: Set<string>;
}

/**
 * APOC's meta-graph: a node per label with its `name` and `count` (nodes with the label), a
 * relationship per pattern with its `type`, `out` (relationships of the type leaving nodes of
 * the start label), `in` (reaching nodes of the end label) and `count` (of the type).
 * `excludes` drops labels and types, and the relationships at a dropped label.
 */
function metaGraph(s: GraphSample, filter: MetaFilter): ProcedureRow {
  const kept = (name: string, among: Set<string> | null) => (among === null || among.has(name)) && !filter.excludes.has(name);
  const nodes = new Map<string, VirtualNode>();
  for (const [label, owner] of sortedEntries(s.byLabel)) if (kept(label, filter.labels)) nodes.set(label, virtualNode(label, { name: label, count: owner.count }));
  const relationships: VirtualRel[] = [];
  for (const t of [...s.triples.values()].sort(byPattern)) {
    const [start, end] = [nodes.get(t.from), nodes.get(t.to)];
    if (!start || !end || !kept(t.type, filter.types)) continue;
    const out = s.patterns.get(`(:${t.from})-[:${t.type}]->()`) ?? 0;
    const into = s.patterns.get(`()-[:${t.type}]->(:${t.to})`) ?? 0;
    relationships.push(virtualRel(t.type, start, end, { type: t.type, out, in: into, count: s.byType.get(t.type)!.count }));
  }
  return { nodes: [...nodes.values()], relationships };
}

/** A config entry that lists names: absent or null for none. */
export function namesArg(proc: string, config: MapValue, key: string): string[] {
  const v: Value | undefined = config[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw procedureError('ProcedureCallFailed', `${proc}: \`${key}\` must be a list of strings`);
  return v as string[];
}

/** apoc.meta.subGraph's config: includeLabels, includeRels, excludeLabels, or their older names labels, rels, excludes. */
function subGraphFilter(config: Value | undefined): MetaFilter {
  const p = 'apoc.meta.subGraph';
  checkConfig(p, config, ['labels', 'rels', 'excludes', 'includeLabels', 'includeRels', 'excludeLabels', 'sample', 'maxRels']);
  const c = mapArg(p, 0, config);
  const either = (old: string, current: string) => {
    const names = namesArg(p, c, old);
    return names.length > 0 ? names : namesArg(p, c, current);
  };
  const labels = either('labels', 'includeLabels');
  const types = either('rels', 'includeRels');
  return { labels: labels.length > 0 ? new Set(labels) : null, types: types.length > 0 ? new Set(types) : null, excludes: new Set(either('excludes', 'excludeLabels')) };
}

const GRAPH_COLUMNS = ['nodes', 'relationships'];

/** A procedure answering the whole meta-graph (apoc.meta.graph and its twin apoc.meta.graphSample). */
function wholeMetaGraph(display: string): Procedure {
  return {
    name: display.toLowerCase(),
    display,
    mode: 'read',
    minArgs: 0,
    maxArgs: 1,
    outputs: GRAPH_COLUMNS,
    run: ([config], ctx) => {
      checkConfig(display, config, SAMPLING);
      return [metaGraph(sampleGraph(ctx), { labels: null, types: null, excludes: new Set() })];
    },
  };
}

export const META_GRAPH_PROCEDURES: Procedure[] = [
  {
    name: 'db.schema.visualization',
    display: 'db.schema.visualization',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: GRAPH_COLUMNS,
    run: (_args, ctx) => [visualization(ctx)],
  },
  wholeMetaGraph('apoc.meta.graph'),
  // APOC reads its counts store rather than sampling; here both read every entity, so they agree.
  wholeMetaGraph('apoc.meta.graphSample'),
  {
    name: 'apoc.meta.subgraph',
    display: 'apoc.meta.subGraph',
    mode: 'read',
    minArgs: 1,
    maxArgs: 1,
    outputs: GRAPH_COLUMNS,
    run: ([config], ctx) => [metaGraph(sampleGraph(ctx), subGraphFilter(config))],
  },
];
