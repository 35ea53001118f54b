import type { EvalContext } from '../evaluate.js';
import type { Procedure, ProcedureRow } from './types.js';

/** The Neo4j version reported to clients: drivers and LangChain check for 5.11+ features (vector indexes, metadata filters). */
export const NEO4J_VERSION = '5.26.0';

/** The live nodes and their labels and properties, overlay included. */
function* nodes(ctx: EvalContext) {
  for (const id of ctx.tx.allNodes()) {
    ctx.guard.step();
    const data = ctx.tx.node(id);
    if (data) yield { id, data };
  }
}

function* sorted(values: Iterable<string>, column: string): Iterable<ProcedureRow> {
  for (const v of [...new Set(values)].sort()) yield { [column]: v };
}

export const SYSTEM_PROCEDURES: Procedure[] = [
  {
    name: 'dbms.components',
    display: 'dbms.components',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['name', 'versions', 'edition'],
    run: () => [{ name: 'Neo4j Kernel', versions: [NEO4J_VERSION], edition: 'community' }],
  },
  {
    name: 'db.labels',
    display: 'db.labels',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['label'],
    run: (_args, ctx) => sorted((function* () {
      for (const n of nodes(ctx)) yield* n.data.labels;
    })(), 'label'),
  },
  {
    name: 'db.relationshiptypes',
    display: 'db.relationshipTypes',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['relationshipType'],
    run: (_args, ctx) => sorted((function* () {
      for (const n of nodes(ctx)) for (const e of ctx.tx.outgoing(n.id)) yield ctx.tx.edgeType(e);
    })(), 'relationshipType'),
  },
  {
    name: 'db.propertykeys',
    display: 'db.propertyKeys',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['propertyKey'],
    run: (_args, ctx) => sorted((function* () {
      for (const n of nodes(ctx)) {
        yield* Object.keys(n.data.payload);
        if (n.data.vector) yield 'embedding';
        for (const e of ctx.tx.outgoing(n.id)) {
          yield 'weight';
          yield* Object.keys(ctx.tx.edge(e)?.properties ?? {});
        }
      }
    })(), 'propertyKey'),
  },
];
