import type { EvalContext } from '../evaluate.js';
import type { Value } from '../values.js';
import { mapArg } from './apoc.js';
import { sampleGraph, sortedEntries, type Owner } from './graph-sample.js';
import { namesArg } from './meta-graph.js';
import { checkConfig, nodeTypeName, quote } from './schema-introspection.js';
import type { Procedure, ProcedureRow } from './types.js';

/**
 * apoc.meta.nodeTypeProperties and apoc.meta.relTypeProperties: db.schema.nodeTypeProperties's
 * table with APOC's extra columns (how many carried the property, how many were seen), a
 * relationship type's rows split by the labels of its start and end nodes. APOC samples; here
 * every node and relationship is read, so the counts are exact.
 */

interface TypeFilter {
  includeLabels: Set<string>;
  excludeLabels: Set<string>;
  includeRels: Set<string>;
  excludeRels: Set<string>;
}

const CONFIG = ['includeLabels', 'excludeLabels', 'includeRels', 'excludeRels', 'labels', 'rels', 'excludes', 'sample', 'maxRels'];

/** The config, its older names (labels, rels, excludes) read as includeLabels, includeRels and excludeLabels. */
function typeFilter(proc: string, config: Value | undefined, known: string[]): TypeFilter {
  checkConfig(proc, config, known);
  const c = mapArg(proc, 0, config);
  const names = (current: string, old?: string) => new Set([...namesArg(proc, c, current), ...(old ? namesArg(proc, c, old) : [])]);
  return { includeLabels: names('includeLabels', 'labels'), excludeLabels: names('excludeLabels', 'excludes'), includeRels: names('includeRels', 'rels'), excludeRels: names('excludeRels') };
}

/** A label APOC reads nodes by: included (or no inclusions given) and not excluded. */
const readLabel = (f: TypeFilter, label: string) => (f.includeLabels.size === 0 || f.includeLabels.has(label)) && !f.excludeLabels.has(label);

/** One row per property of the owner, or one with null property columns when it has none. */
function* rows(owner: Owner, head: ProcedureRow): Iterable<ProcedureRow> {
  if (owner.properties.size === 0) yield { ...head, propertyName: null, propertyTypes: null, mandatory: false, propertyObservations: 0, totalObservations: owner.count };
  for (const [key, p] of sortedEntries(owner.properties)) {
    yield { ...head, propertyName: key, propertyTypes: [...p.neo4jTypes].sort(), mandatory: p.count === owner.count, propertyObservations: p.count, totalObservations: owner.count };
  }
}

/** A node type is seen when none of its labels is excluded and one is included (or no inclusions are given); unlabelled nodes are never read. */
function* nodeTypeProperties(ctx: EvalContext, f: TypeFilter): Iterable<ProcedureRow> {
  for (const [, owner] of sortedEntries(sampleGraph(ctx).byLabelSet)) {
    if (owner.labels.length === 0 || owner.labels.some((l) => f.excludeLabels.has(l)) || !owner.labels.some((l) => readLabel(f, l))) continue;
    yield* rows(owner, { nodeType: nodeTypeName(owner.labels), nodeLabels: owner.labels });
  }
}

/** A relationship is seen from its start node, read by one of that node's labels. */
function* relTypeProperties(ctx: EvalContext, f: TypeFilter): Iterable<ProcedureRow> {
  for (const [, owner] of sortedEntries(sampleGraph(ctx).byRelPattern)) {
    const typeKept = (f.includeRels.size === 0 || f.includeRels.has(owner.type)) && !f.excludeRels.has(owner.type);
    if (!typeKept || !owner.from.some((l) => readLabel(f, l))) continue;
    yield* rows(owner, { relType: `:${quote(owner.type)}`, sourceNodeLabels: owner.from, targetNodeLabels: owner.to });
  }
}

export const APOC_TYPE_PROPERTIES_PROCEDURES: Procedure[] = [
  {
    name: 'apoc.meta.nodetypeproperties',
    display: 'apoc.meta.nodeTypeProperties',
    mode: 'read',
    minArgs: 0,
    maxArgs: 1,
    outputs: ['nodeType', 'nodeLabels', 'propertyName', 'propertyTypes', 'mandatory', 'propertyObservations', 'totalObservations'],
    // A node's relationship types do not choose which nodes are read here: includeRels and excludeRels are refused by name.
    run: ([config], ctx) => nodeTypeProperties(ctx, typeFilter('apoc.meta.nodeTypeProperties', config, CONFIG.filter((k) => k !== 'includeRels' && k !== 'excludeRels' && k !== 'rels'))),
  },
  {
    name: 'apoc.meta.reltypeproperties',
    display: 'apoc.meta.relTypeProperties',
    mode: 'read',
    minArgs: 0,
    maxArgs: 1,
    outputs: ['relType', 'sourceNodeLabels', 'targetNodeLabels', 'propertyName', 'propertyTypes', 'mandatory', 'propertyObservations', 'totalObservations'],
    run: ([config], ctx) => relTypeProperties(ctx, typeFilter('apoc.meta.relTypeProperties', config, CONFIG)),
  },
];
