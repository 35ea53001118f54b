import type { EvalContext } from '../evaluate.js';
import { indexLabels } from '../schema.js';
import { float } from '../numbers.js';
import type { MapValue, Value } from '../values.js';
import { mapArg } from './apoc.js';
import { propertyRules, sampleGraph, sortedEntries, type GraphSample, type Owner } from './graph-sample.js';
import { procedureError, type Procedure, type ProcedureRow } from './types.js';

export const quote = (name: string) => '`' + name.replaceAll('`', '``') + '`';

/** A config map whose keys are among `known` (APOC's sampling settings are met as they stand: every node is read). */
export function checkConfig(proc: string, config: Value | undefined, known: string[]): void {
  const unknown = Object.keys(mapArg(proc, 0, config)).find((k) => !known.includes(k));
  if (unknown !== undefined) throw procedureError('ProcedureCallFailed', `${proc} does not take the setting \`${unknown}\`; it takes ${known.map((k) => `\`${k}\``).join(' and ')}`);
}

const metaRow = (label: string, prop: string, type: string, count: number, elementType: string, rules = { unique: false, indexed: false, existence: false }, other: string[] = []): ProcedureRow => ({
  label,
  property: prop,
  count,
  unique: rules.unique,
  index: rules.indexed,
  existence: rules.existence,
  type,
  array: type === 'LIST',
  sample: null,
  left: 0,
  right: 0,
  other,
  otherLabels: [],
  elementType,
});

/**
 * apoc.meta.data(): one row per label and property, per label and outgoing relationship type
 * (type RELATIONSHIP, `other` the labels at the far end), and per relationship type and property.
 */
function* metaData(ctx: EvalContext): Iterable<ProcedureRow> {
  const s = sampleGraph(ctx);
  const rules = propertyRules(ctx);
  for (const [label, owner] of sortedEntries(s.byLabel)) for (const [key, p] of sortedEntries(owner.properties)) yield metaRow(label, key, p.type.apoc, p.count, 'node', rules(label, key));
  for (const [label, byType] of sortedEntries(s.outgoing)) for (const [type, link] of sortedEntries(byType)) yield metaRow(label, type, 'RELATIONSHIP', link.count, 'node', undefined, [...link.labels].sort());
  for (const [type, owner] of sortedEntries(s.byType)) for (const [key, p] of sortedEntries(owner.properties)) yield metaRow(type, key, p.type.apoc, p.count, 'relationship');
}

/** apoc.meta.schema(): one map, by label and relationship type, as the Neo4j MCP server and LangChain's enhanced schema read it. */
function metaSchema(ctx: EvalContext): MapValue {
  const s = sampleGraph(ctx);
  const rules = propertyRules(ctx);
  const out: MapValue = {};
  for (const [type, owner] of sortedEntries(s.byType)) {
    const properties: MapValue = {};
    for (const [key, p] of sortedEntries(owner.properties)) properties[key] = { existence: false, type: p.type.apoc, array: p.type.apoc === 'LIST' };
    out[type] = { type: 'relationship', count: owner.count, properties };
  }
  for (const [label, owner] of sortedEntries(s.byLabel)) {
    const properties: MapValue = {};
    for (const [key, p] of sortedEntries(owner.properties)) properties[key] = { type: p.type.apoc, ...rules(label, key) };
    const relationships: MapValue = {};
    // A type both leaving and reaching the label is listed once, outgoing.
    for (const [direction, links] of [['in', s.incoming.get(label)], ['out', s.outgoing.get(label)]] as const) {
      for (const [type, link] of sortedEntries(links ?? new Map())) {
        const rel = s.byType.get(type)!;
        const props: MapValue = {};
        for (const [key, p] of sortedEntries(rel.properties)) props[key] = { existence: false, type: p.type.apoc, array: p.type.apoc === 'LIST' };
        relationships[type] = { count: link.count, direction, labels: [...link.labels].sort(), properties: props };
      }
    }
    out[label] = { type: 'node', count: owner.count, labels: [], properties, relationships };
  }
  return out;
}

function metaStats(ctx: EvalContext): ProcedureRow {
  const s: GraphSample = sampleGraph(ctx);
  const labels: MapValue = {};
  for (const [label, owner] of sortedEntries(s.byLabel)) labels[label] = owner.count;
  const relTypesCount: MapValue = {};
  const relTypes: MapValue = {};
  for (const [type, owner] of sortedEntries(s.byType)) {
    relTypesCount[type] = owner.count;
    relTypes[`()-[:${type}]->()`] = owner.count;
  }
  for (const [pattern, n] of sortedEntries(s.patterns)) relTypes[pattern] = n;
  const counts = { labelCount: s.byLabel.size, relTypeCount: s.byType.size, propertyKeyCount: s.propertyKeys.size, nodeCount: s.nodeCount, relCount: s.relCount };
  return { ...counts, labels, relTypes, relTypesCount, stats: { ...counts, labels, relTypes } };
}

export const nodeTypeName = (labels: string[]) => labels.map((l) => `:${quote(l)}`).join('');

/** Rows of db.schema.nodeTypeProperties / relTypeProperties for one node type or relationship type; one with null columns when it has no property. */
function* typeProperties(owner: Owner, head: ProcedureRow): Iterable<ProcedureRow> {
  if (owner.properties.size === 0) yield { ...head, propertyName: null, propertyTypes: null, mandatory: false };
  for (const [key, p] of sortedEntries(owner.properties)) yield { ...head, propertyName: key, propertyTypes: [...p.neo4jTypes].sort(), mandatory: p.count === owner.count };
}

function* nodeTypeProperties(ctx: EvalContext): Iterable<ProcedureRow> {
  for (const [, owner] of sortedEntries(sampleGraph(ctx).byLabelSet)) {
    if (owner.labels.length === 0) continue;
    yield* typeProperties(owner, { nodeType: nodeTypeName(owner.labels), nodeLabels: owner.labels });
  }
}

function* relTypeProperties(ctx: EvalContext): Iterable<ProcedureRow> {
  for (const [type, owner] of sortedEntries(sampleGraph(ctx).byType)) yield* typeProperties(owner, { relType: `:${quote(type)}` });
}

/** apoc.schema.nodes(): each index and constraint on nodes, as APOC lists them. */
function schemaNodes(ctx: EvalContext): ProcedureRow[] {
  const { schema } = ctx.tx;
  const size = (label: string) => ctx.tx.nodesWithLabel(label).length;
  const row = (name: string, labels: string[], properties: string[], type: string, provider: string | null): ProcedureRow => ({
    name,
    label: labels.length === 1 ? labels[0]! : labels,
    properties,
    status: 'ONLINE',
    type,
    failure: 'NO FAILURE',
    populationProgress: float(100),
    size: labels.reduce((n, l) => n + size(l), 0),
    valuesSelectivity: float(1),
    userDescription: `name='${name}', type='${type}', schema=(:${labels.join(':')} {${properties.join(', ')}})${provider ? `, indexProvider='${provider}'` : ''}`,
  });
  const indexes = schema.allIndexes().filter((i) => i.owningConstraint === null).map((i) => row(i.name, indexLabels(i), i.properties, i.type, `${i.type.toLowerCase()}-1.0`));
  const constraints = schema.allConstraints().map((c) => row(c.name, [c.label], c.properties, c.type, c.type === 'NODE_PROPERTY_EXISTENCE' ? null : 'range-1.0'));
  return [...indexes, ...constraints];
}

const META_DATA_COLUMNS = ['label', 'property', 'count', 'unique', 'index', 'existence', 'type', 'array', 'sample', 'left', 'right', 'other', 'otherLabels', 'elementType'];
/** The sampling settings APOC's meta procedures take: accepted and met, since every entity is read. */
export const SAMPLING = ['sample', 'maxRels'];

export const INTROSPECTION_PROCEDURES: Procedure[] = [
  {
    name: 'apoc.meta.data',
    display: 'apoc.meta.data',
    mode: 'read',
    minArgs: 0,
    maxArgs: 1,
    outputs: META_DATA_COLUMNS,
    run: ([config], ctx) => {
      checkConfig('apoc.meta.data', config, SAMPLING);
      return metaData(ctx);
    },
  },
  {
    name: 'apoc.meta.schema',
    display: 'apoc.meta.schema',
    mode: 'read',
    minArgs: 0,
    maxArgs: 1,
    outputs: ['value'],
    run: ([config], ctx) => {
      checkConfig('apoc.meta.schema', config, SAMPLING);
      return [{ value: metaSchema(ctx) }];
    },
  },
  {
    name: 'apoc.meta.stats',
    display: 'apoc.meta.stats',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['labelCount', 'relTypeCount', 'propertyKeyCount', 'nodeCount', 'relCount', 'labels', 'relTypes', 'relTypesCount', 'stats'],
    run: (_args, ctx) => [metaStats(ctx)],
  },
  {
    name: 'apoc.schema.nodes',
    display: 'apoc.schema.nodes',
    mode: 'read',
    minArgs: 0,
    maxArgs: 1,
    outputs: ['name', 'label', 'properties', 'status', 'type', 'failure', 'populationProgress', 'size', 'valuesSelectivity', 'userDescription'],
    run: ([config], ctx) => {
      checkConfig('apoc.schema.nodes', config, ['labels', 'excludeLabels']);
      const { labels, excludeLabels } = mapArg('apoc.schema.nodes', 0, config);
      const wanted = (row: ProcedureRow) => {
        const own = Array.isArray(row.label) ? row.label : [row.label];
        return (!Array.isArray(labels) || labels.length === 0 || own.some((l) => labels.includes(l))) && !(Array.isArray(excludeLabels) && own.some((l) => excludeLabels.includes(l)));
      };
      return schemaNodes(ctx).filter(wanted);
    },
  },
  {
    name: 'db.schema.nodetypeproperties',
    display: 'db.schema.nodeTypeProperties',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['nodeType', 'nodeLabels', 'propertyName', 'propertyTypes', 'mandatory'],
    run: (_args, ctx) => nodeTypeProperties(ctx),
  },
  {
    name: 'db.schema.reltypeproperties',
    display: 'db.schema.relTypeProperties',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['relType', 'propertyName', 'propertyTypes', 'mandatory'],
    run: (_args, ctx) => relTypeProperties(ctx),
  },
];
