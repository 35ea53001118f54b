import type { PointId } from '../../../storage/point-id.js';
import { comparePointIds } from '../../../storage/point-id.js';
import { textTokens } from '../../../storage/text-tokens.js';
import type { EvalContext } from '../evaluate.js';
import { float } from '../numbers.js';
import { listBytes } from '../sizes.js';
import { indexLabels } from '../schema.js';
import { isMap, NodeRef } from '../values.js';
import { expectArg, integerArg, isString, procedureError, type Procedure, type ProcedureRow } from './types.js';

/** BM25's term-frequency saturation and length normalisation (Lucene's defaults). */
const K1 = 1.2;
const B = 0.75;

interface Doc {
  id: PointId;
  /** Occurrences of each query term in the node's indexed text. */
  counts: number[];
  length: number;
}

/**
 * db.index.fulltext.queryNodes(index, query [, {limit, skip}]) YIELD node, score: the nodes of the
 * index's labels whose indexed string properties hold any word of the query (the words as the
 * payload text index reads them: lower-case runs of letters and digits, so Lucene's operators
 * are read as words or dropped), ranked by BM25 over those labels' nodes, best first.
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
  const terms = [...new Set(textTokens(text))];
  if (terms.length === 0) return [];
  const { tx, guard } = ctx;
  const docs: Doc[] = [];
  const df = new Array<number>(terms.length).fill(0);
  let total = 0;
  const labels = indexLabels(index);
  const nodes = labels.length === 1 ? tx.nodesWithLabel(labels[0]!) : [...new Set(labels.flatMap((l) => tx.nodesWithLabel(l)))];
  for (const id of nodes) {
    guard.step();
    const payload = tx.payloadOf(id);
    if (!payload) continue;
    const counts = new Array<number>(terms.length).fill(0);
    let length = 0;
    for (const key of index.properties) {
      const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
      if (typeof value !== 'string') continue;
      const words = textTokens(value);
      length += words.length;
      for (const w of words) {
        const t = terms.indexOf(w);
        if (t >= 0) counts[t]!++;
      }
    }
    total += length;
    if (counts.some((c) => c > 0)) {
      guard.charge(listBytes(terms.length + 2), 'the nodes a full-text query ranks');
      counts.forEach((c, t) => c > 0 && df[t]!++);
      docs.push({ id, counts, length });
    }
  }
  const n = nodes.length;
  const average = n === 0 ? 0 : total / n;
  // The ranked nodes are let go once the answer is built.
  guard.release(listBytes(terms.length + 2) * docs.length);
  const scored = docs.map((d) => {
    let score = 0;
    d.counts.forEach((tf, t) => {
      if (tf === 0) return;
      const idf = Math.log(1 + (n - df[t]! + 0.5) / (df[t]! + 0.5));
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d.length) / (average || 1)));
    });
    return { id: d.id, score };
  });
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
