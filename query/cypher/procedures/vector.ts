import type { PointId } from '../../../storage/point-id.js';
import { comparePointIds } from '../../../storage/point-id.js';
import { searchCollection } from '../../search/vector-search.js';
import type { EvalContext } from '../evaluate.js';
import { float } from '../numbers.js';
import { vectorSimilarity } from '../similarity.js';
import { NodeRef, type Value } from '../values.js';
import { indexedVectorName, VECTOR_PROPERTY } from './schema-commands.js';
import { expectArg, integerArg, isString, procedureError, vectorArg, type Procedure, type ProcedureRow } from './types.js';

/** Labels with at most this many nodes are searched exactly, node by node. */
const SCAN_LIMIT = 10_000;
const MAX_K = 10_000;

interface Hit {
  id: PointId;
  score: number;
}

const byScore = (a: Hit, b: Hit) => b.score - a.score || comparePointIds(a.id, b.id);

/**
 * Every node of the label, scored: for small labels and for transactions with writes of their own.
 * A named vector (`using`) is read as stored: Cypher never writes one.
 */
function exactSearch(ctx: EvalContext, label: string, using: string, cosine: boolean, query: number[], k: number): Hit[] {
  const hits: Hit[] = [];
  const named = using === '' ? null : ctx.tx.collection.named.get(using)!;
  for (const id of ctx.tx.nodesWithLabel(label)) {
    ctx.guard.step();
    const v = named ? named.vectorOf(id) : ctx.tx.node(id)?.vector;
    if (v) hits.push({ id, score: vectorSimilarity(cosine, query, v) ?? 0 });
  }
  return hits.sort(byScore).slice(0, k);
}

/** The collection's HNSW index, asked for more neighbours until k of them carry the label. */
function indexedSearch(ctx: EvalContext, label: string, using: string, cosine: boolean, query: number[], k: number): Hit[] {
  const c = ctx.tx.collection;
  const members = c.labelIndex.pointsWith(label);
  const live = c.store.liveCount;
  for (let want = k * 4; ; want *= 2) {
    const limit = Math.min(want, live);
    const found = searchCollection(c, { vector: query, using, limit, offset: 0, ef: Math.max(limit, 64), filter: null, scoreThreshold: null });
    const hits = found.filter((h) => members.has(h.id)).slice(0, k);
    ctx.guard.step(found.length);
    if (hits.length === k || limit >= live) {
      // The collection's score (cosine, or minus the Euclidean distance) as Neo4j's.
      return hits.map((h) => ({ id: h.id, score: cosine ? (1 + h.score) / 2 : 1 / (1 + h.score * h.score) }));
    }
  }
}

function setVector(name: string, args: Value[], assign: (node: NodeRef, vector: number[]) => void): NodeRef {
  const node = args[0];
  if (!(node instanceof NodeRef)) throw procedureError('ProcedureCallFailed', `${name}: argument 1 must be a node`);
  const key = expectArg(name, 1, args[1]!, isString, 'a property name');
  if (key !== VECTOR_PROPERTY) throw procedureError('ProcedureCallFailed', `${name}: a node's vector is its \`${VECTOR_PROPERTY}\` property, got \`${key}\``);
  assign(node, vectorArg(name, 2, args[2]!));
  return node;
}

export const VECTOR_PROCEDURES: Procedure[] = [
  {
    name: 'db.index.vector.querynodes',
    display: 'db.index.vector.queryNodes',
    mode: 'read',
    minArgs: 3,
    maxArgs: 3,
    outputs: ['node', 'score'],
    run: (args, ctx): ProcedureRow[] => {
      const p = 'db.index.vector.queryNodes';
      const name = expectArg(p, 0, args[0]!, isString, 'an index name');
      const k = integerArg(p, 1, args[1]!);
      const query = vectorArg(p, 2, args[2]!);
      const index = ctx.tx.schema.index(name);
      if (!index || index.type !== 'VECTOR') throw procedureError('ProcedureCallFailed', `${p}: there is no vector index called \`${name}\``);
      if (k < 1 || k > MAX_K) throw procedureError('ProcedureCallFailed', `${p}: k must be from 1 to ${MAX_K}, got ${k}`);
      if (query.length !== index.dimensions) throw procedureError('ProcedureCallFailed', `${p}: index \`${name}\` has ${index.dimensions} dimensions, the query vector ${query.length}`);
      if (!query.every(Number.isFinite)) throw procedureError('ProcedureCallFailed', `${p}: the query vector holds a number that is not finite`);
      const cosine = index.similarity === 'COSINE';
      const { tx } = ctx;
      const small = tx.collection.labelIndex.pointsWith(index.label).size <= SCAN_LIMIT;
      const using = indexedVectorName(index.properties[0]!);
      const hits = tx.dirty || tx.provisional || small ? exactSearch(ctx, index.label, using, cosine, query, k) : indexedSearch(ctx, index.label, using, cosine, query, k);
      return hits.map((h) => ({ node: new NodeRef(h.id), score: float(h.score) }));
    },
  },
  {
    name: 'db.create.setnodevectorproperty',
    display: 'db.create.setNodeVectorProperty',
    mode: 'write',
    minArgs: 3,
    maxArgs: 3,
    outputs: [],
    run: (args, _ctx, writer) => {
      setVector('db.create.setNodeVectorProperty', args, (node, v) => writer.assign(node, [[VECTOR_PROPERTY, v]], false));
      return [];
    },
  },
  {
    name: 'db.create.setvectorproperty',
    display: 'db.create.setVectorProperty',
    mode: 'write',
    minArgs: 3,
    maxArgs: 3,
    outputs: ['node'],
    run: (args, _ctx, writer) => [{ node: setVector('db.create.setVectorProperty', args, (node, v) => writer.assign(node, [[VECTOR_PROPERTY, v]], false)) }],
  },
];
