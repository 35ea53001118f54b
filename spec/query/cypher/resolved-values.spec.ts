import { expect } from 'chai';
import { Collection } from '../../../storage/collection.js';
import { parseCollectionBody } from '../../../query/api/collection-body.js';
import { GraphTx } from '../../../query/cypher/graph-tx.js';
import { WholeFloat } from '../../../query/cypher/numbers.js';
import { resolveParameters, resolveValue, valueOf, type ResolvedNode, type ResolvedPath, type ResolvedRel } from '../../../query/cypher/resolved-values.js';
import { CypherPoint } from '../../../query/cypher/spatial/point.js';
import { CypherDate, CypherDateTime, CypherDuration, CypherLocalDateTime, CypherLocalTime, CypherTime } from '../../../query/cypher/temporal/types.js';
import { NodeRef, PathValue, RelRef, type Value } from '../../../query/cypher/values.js';

describe('query: resolved values (what crosses to and from a Cypher replica)', () => {
  it('gives parameters of every type back as the same values, classes included, after a structured clone', () => {
    const proto = JSON.parse('{"__proto__": 1, "plain": {"a": [1, 2]}}') as Record<string, Value>;
    const parameters: Record<string, Value> = {
      n: null,
      b: true,
      i: 42,
      big: 9223372036854775807n,
      f: new WholeFloat(2),
      s: 'héllo',
      bytes: Uint8Array.from([0, 255]),
      list: [1, 'two', [false, new WholeFloat(1)]],
      map: proto,
      date: new CypherDate(19000),
      localtime: new CypherLocalTime(3_600_000_000_123),
      time: new CypherTime(3_600_000_000_000, 3600),
      localdatetime: new CypherLocalDateTime(-1, 5),
      datetime: new CypherDateTime(19000, 0, -18000, null),
      zoned: new CypherDateTime(19000, 0, 7200, 'Europe/Paris'),
      duration: new CypherDuration(14, 3, 63113903968377599n, 500),
      point: new CypherPoint(4979, 12.5, 56, 100),
      flat: new CypherPoint(7203, 1, 2.5, null),
    };
    const crossed = structuredClone(resolveParameters(parameters));
    const back: Record<string, Value> = {};
    for (const [k, v] of crossed) back[k] = valueOf(v);
    expect(back).to.deep.equal(parameters);
    for (const [k, v] of Object.entries(parameters)) {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) expect(Object.getPrototypeOf(back[k]), k).to.equal(Object.getPrototypeOf(v));
    }
    expect(Object.hasOwn(back.map as object, '__proto__'), 'a __proto__ key stays an own entry').to.equal(true);
    expect((back.duration as CypherDuration).exactSeconds).to.equal(63113903968377599n);
  });

  it('refuses nodes, relationships and paths as parameters', () => {
    expect(() => resolveParameters({ n: new NodeRef(1) })).to.throw(/not supported as parameters/);
  });

  it('reads entities through the overlay: labels, properties, a relationship\'s ends, type and weight, a path\'s walk; one no longer found is empty', () => {
    const c = new Collection('g', parseCollectionBody({ vectors: { size: 1, distance: 'Cosine' } }), 0);
    const tx = new GraphTx(c);
    const a = tx.createNode(['A'], { name: 'a' }, null);
    const b = tx.createNode(['B'], {}, null);
    const rel = tx.createEdge(a, b, 'KNOWS', 0.5, { since: 2020 });
    expect(resolveValue(new NodeRef(a), tx)).to.deep.equal({ $: 'node', id: a, labels: ['A'], properties: new Map([['name', 'a']]) });
    const r = resolveValue(new RelRef(rel), tx) as ResolvedRel;
    expect([r.from, r.to, r.type, [...r.properties]]).to.deep.equal([a, b, 'KNOWS', [['since', 2020], ['weight', 0.5]]]);
    const p = structuredClone(resolveValue(new PathValue([a, b], [rel]), tx)) as ResolvedPath;
    expect(p.nodes.map((n: ResolvedNode) => n.labels)).to.deep.equal([['A'], ['B']]);
    expect(p.rels.map((e) => [e.id, e.from, e.to])).to.deep.equal([[rel, a, b]]);
    expect(resolveValue(new NodeRef(99), tx)).to.deep.equal({ $: 'node', id: 99, labels: [], properties: new Map() });
    expect(resolveValue(new RelRef(99), tx)).to.deep.equal({ $: 'rel', id: 99, from: -1, to: -1, type: '', properties: new Map() });
  });
});
