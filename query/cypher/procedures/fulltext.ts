import type { PointId } from '../../../storage/point-id.js';
import { comparePointIds } from '../../../storage/point-id.js';
import type { EvalContext } from '../evaluate.js';
import { fieldTokens, IndexStats, relevantDoc, type AnalysedDoc } from '../fulltext/analysed-doc.js';
import { parseLuceneQuery } from '../fulltext/parser.js';
import type { LuceneQuery } from '../fulltext/query-tree.js';
import { compileLuceneQuery, queryTerms } from '../fulltext/scorer.js';
import { LuceneSyntaxError, LuceneUnsupportedError } from '../fulltext/syntax-error.js';
import { float } from '../numbers.js';
import { listBytes } from '../sizes.js';
import { indexLabels } from '../schema.js';
import { isMap, NodeRef } from '../values.js';
import { expectArg, integerArg, isString, procedureError, type Procedure, type ProcedureRow } from './types.js';

/**
 * db.index.fulltext.queryNodes(index, query [, {limit, skip}]) YIELD node, score: the nodes of the
 * index's labels that match the query, written in Lucene's classic query syntax as Neo4j reads
 * it (query/cypher/fulltext/), best first. Each indexed property is a field with its own BM25
 * statistics, gathered over the index's nodes before they are scored.
 */
function queryNodes(args: Parameters<Procedure['run']>[0], ctx: EvalContext): ProcedureRow[] {
  const p = 'db.index.fulltext.queryNodes';
  const name = expectArg(p, 0, args[0]!, isString, 'an index name');
  const text = expectArg(p, 1, args[1]!, isString, 'a query string');
  const options = args[2] ?? null;
  if (options !== null && !isMap(options)) throw procedureError('ProcedureCallFailed', `${p}: argument 3 must be a map of options ({limit, skip})`);
  const unknown = Object.keys(options ?? {}).find((k) => k !== 'limit' && k !== 'skip');
  if (unknown !== undefined) throw procedureError('ProcedureCallFailed', `${p} does not take the option \`${unknown}\`; it takes limit and skip`);
  const limit = options?.limit !== undefined && options.limit !== null ? integerArg(p, 2, options.limit) : Infinity;
  const skip = options?.skip !== undefined && options.skip !== null ? integerArg(p, 2, options.skip) : 0;
  const index = ctx.tx.schema.index(name);
  if (!index || index.type !== 'FULLTEXT') throw procedureError('ProcedureCallFailed', `${p}: there is no full-text index called \`${name}\``);
  let query: LuceneQuery | null;
  try {
    query = parseLuceneQuery(text);
  } catch (err) {
    if (err instanceof LuceneUnsupportedError) throw procedureError('ProcedureCallFailed', `${p}: ${err.message}`);
    if (!(err instanceof LuceneSyntaxError)) throw err;
    throw procedureError('ProcedureCallFailed', `Failed to invoke procedure \`${p}\`: Caused by: org.apache.lucene.queryparser.classic.ParseException: ${err.message}`);
  }
  if (query === null) return [];
  const { tx, guard } = ctx;
  const labels = indexLabels(index);
  const nodes = labels.length === 1 ? tx.nodesWithLabel(labels[0]!) : [...new Set(labels.flatMap((l) => tx.nodesWithLabel(l)))];
  // One pass gathers each field's statistics and keeps, of each node, only the tokens the query
  // looks up; the nodes are scored once the statistics are whole. Both are held until the answer is built.
  const stats = new IndexStats(index.properties);
  const { relevant, all } = queryTerms(query);
  const candidates: { id: PointId; doc: AnalysedDoc }[] = [];
  let held = 0;
  const hold = (bytes: number, what: string) => {
    guard.charge(bytes, what);
    held += bytes;
  };
  for (const id of nodes) {
    guard.step();
    const payload = tx.payloadOf(id);
    const fields = payload ? fieldTokens(payload, index.properties) : null;
    if (!fields) continue;
    const before = stats.termCount;
    stats.add(fields);
    if (stats.termCount > before) hold(listBytes(2) * (stats.termCount - before), 'the terms of a full-text index');
    const doc = relevantDoc(fields, relevant) ?? (all ? new Map() : null);
    if (!doc) continue;
    hold(listBytes(2 + 2 * fields.size), 'the nodes a full-text query ranks');
    candidates.push({ id, doc });
  }
  const scorer = compileLuceneQuery(query, stats);
  const scored: { id: PointId; score: number }[] = [];
  for (const { id, doc } of scorer ? candidates : []) {
    guard.step();
    const score = scorer!(doc);
    if (score !== null) scored.push({ id, score });
  }
  guard.release(held);
  scored.sort((a, b) => b.score - a.score || comparePointIds(a.id, b.id));
  return scored.slice(skip, skip + limit).map((s) => ({ node: new NodeRef(s.id), score: float(s.score) }));
}

export const FULLTEXT_PROCEDURES: Procedure[] = [
  {
    name: 'db.index.fulltext.querynodes',
    display: 'db.index.fulltext.queryNodes',
    mode: 'read',
    minArgs: 2,
    maxArgs: 3,
    outputs: ['node', 'score'],
    run: (args, ctx) => queryNodes(args, ctx),
  },
];
