import { expect } from 'chai';
import fc from 'fast-check';
import { cypherGraph } from '../../helpers/cypher-graph.js';

/**
 * SHORTEST k, SHORTEST k GROUPS and ANY k over one quantified relationship or group are searched
 * shortest first and stop once the selector has its paths. They are checked here against every
 * trail of the pattern listed in the spec itself on small random graphs (cycles, self-loops,
 * parallel edges): GROUPS keeps exactly the trails of the k shortest lengths of each pair of end
 * nodes; SHORTEST k the k shortest lengths, ANY k min(k, trails) paths, each a trail of its pair.
 */
type Edge = [from: number, to: number, w: number];

function randomGraph(n: number, edges: Edge[]) {
  const g = cypherGraph();
  g.run('UNWIND range(0, $n - 1) AS i CREATE (:N {i: i})', { n });
  g.run('UNWIND range(0, size($edges) - 1) AS k WITH k, $edges[k] AS e MATCH (a:N {i: e[0]}), (b:N {i: e[1]}) CREATE (a)-[:T {id: k, w: e[2]}]->(b)', { edges });
  return g;
}

interface Shape {
  /** The text between the two end nodes. */
  text: string;
  direction: 'out' | 'in' | 'both';
  /** Relationships per repetition (1 for a quantified relationship). */
  size: number;
  /** Which relationships the pattern may cross. */
  allows: (e: Edge) => boolean;
  /** The list of every relationship of the path, as the WHERE reads it. */
  rels: string;
}

const shapes = (q: string): Shape[] => [
  { text: `-[r:T]->${q}`, direction: 'out', size: 1, allows: () => true, rels: 'r' },
  { text: `<-[r:T]-${q}`, direction: 'in', size: 1, allows: () => true, rels: 'r' },
  { text: `-[r:T]-${q}`, direction: 'both', size: 1, allows: () => true, rels: 'r' },
  { text: `-[r:T {w: 1}]-${q}`, direction: 'both', size: 1, allows: (e) => e[2] === 1, rels: 'r' },
  { text: `<-[r:T WHERE r.w <> 1]-${q}`, direction: 'in', size: 1, allows: (e) => e[2] !== 1, rels: 'r' },
  { text: `((x)-[r:T]->(y) WHERE r.w > 0)${q}`, direction: 'out', size: 1, allows: (e) => e[2] > 0, rels: 'r' },
  { text: `((x)<-[r:T WHERE r.w < 2]-(y))${q}`, direction: 'in', size: 1, allows: (e) => e[2] < 2, rels: 'r' },
  { text: `((x)-[:T]-()-[:T]-(y))${q}`, direction: 'both', size: 2, allows: () => true, rels: 'relationships(p)' },
];

/** Every trail of a shape from each node, as [start, end, relationship ids in path order], within the bounds (in repetitions). */
function trails(n: number, edges: Edge[], shape: Shape, min: number, max: number): [number, number, number[]][] {
  const out: [number, number, number[]][] = [];
  const walk = (start: number, at: number, used: number[]) => {
    const reps = used.length / shape.size;
    if (Number.isInteger(reps) && reps >= min && reps <= max) out.push([start, at, [...used]]);
    if (used.length >= max * shape.size) return;
    edges.forEach((e, id) => {
      if (used.includes(id) || !shape.allows(e)) return;
      const ends = shape.direction === 'out' ? (e[0] === at ? [e[1]] : []) : shape.direction === 'in' ? (e[1] === at ? [e[0]] : []) : e[0] === at ? [e[1]] : e[1] === at ? [e[0]] : [];
      for (const next of ends) walk(start, next, [...used, id]);
    });
  };
  for (let i = 0; i < n; i++) walk(i, i, []);
  return out;
}

const key = (a: number, b: number) => `${a}/${b}`;

function byPair<T extends [number, number, ...unknown[]]>(rows: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) m.set(key(r[0], r[1]), [...(m.get(key(r[0], r[1])) ?? []), r]);
  return m;
}

const ends = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

const sortedLengths = (ids: number[][]) => ids.map((x) => x.length).sort((x, y) => x - y);

describe('query/cypher SHORTEST k, SHORTEST k GROUPS and ANY k searched shortest first', () => {
  const graphs = fc.integer({ min: 1, max: 6 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      edges: fc.array(fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: 2 })), { maxLength: 7 }),
    }),
  );
  const quantifiers: [string, number, number][] = [['+', 1, Infinity], ['{1,3}', 1, 3], ['*', 0, Infinity], ['{0,2}', 0, 2], ['{2,}', 2, Infinity], ['{2,4}', 2, 4]];

  it('keeps what the selector keeps of every trail, for each direction, bound, shape, bound end and predicate', () => {
    fc.assert(
      fc.property(
        graphs,
        fc.integer({ min: 0, max: 7 }),
        fc.constantFrom(...quantifiers),
        fc.constantFrom('SHORTEST', 'GROUPS', 'ANY'),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom('none', 'start', 'end', 'bound end', 'loop', 'trail', 'each'),
        ({ n, edges }, s, [q, min, max], kind, k, predicate) => {
          const shape = shapes(q)[s]!;
          const g = randomGraph(n, edges);
          // A predicate on the start node, on the end node, the end node bound outright or to the start, or one that reads the trail or each of its relationships.
          const end = predicate === 'bound end' ? '(b:N {i: 0})' : predicate === 'loop' ? '(a)' : '(b:N)';
          const where = predicate === 'start' ? ' WHERE a.i <> 1' : predicate === 'end' ? ' WHERE b.i <> 1' : predicate === 'trail' ? ' WHERE length(p) <> 2' : predicate === 'each' ? ` WHERE all(x IN ${shape.rels} WHERE x.w <> 2)` : '';
          const selector = kind === 'GROUPS' ? `SHORTEST ${k} GROUPS` : `${kind} ${k}`;
          const query = `MATCH ${selector} (p = (a:N)${shape.text}${end}${where}) RETURN a.i, ${predicate === 'loop' ? 'a' : 'b'}.i AS b, [r IN relationships(p) | r.id]`;
          const got = g.rows(query) as [number, number, number[]][];
          const all = trails(n, edges, shape, min, max).filter(([a, b, ids]) => {
            if (predicate === 'start' && a === 1) return false;
            if ((predicate === 'bound end' && b !== 0) || (predicate === 'loop' && a !== b)) return false;
            if (predicate === 'end' && b === 1) return false;
            if (predicate === 'each' && ids.some((id) => edges[id]![2] === 2)) return false;
            return !(predicate === 'trail' && ids.length === 2);
          });
          const context = `${query} on ${JSON.stringify(edges)}`;
          const expected = byPair(all);
          const found = byPair(got);
          expect([...found.keys()].sort(), context).to.deep.equal([...expected.keys()].sort());
          for (const [pair, list] of expected) {
            const ids = list.map((t) => t[2]);
            const chosen = found.get(pair)!.map((t) => t[2]);
            const lengths = [...new Set(sortedLengths(ids))].slice(0, k);
            if (kind === 'GROUPS') {
              const want = ids.filter((x) => lengths.includes(x.length)).map((x) => JSON.stringify(x));
              expect(chosen.map((x) => JSON.stringify(x)).sort(), `${context}: ${pair}`).to.deep.equal(want.sort());
              continue;
            }
            const valid = new Set(ids.map((x) => JSON.stringify(x)));
            expect(new Set(chosen.map((x) => JSON.stringify(x))).size, `${context}: ${pair} repeats a path`).to.equal(chosen.length);
            for (const x of chosen) expect(valid.has(JSON.stringify(x)), `${context}: ${pair} ${JSON.stringify(x)} is not a trail of the pair`).to.equal(true);
            if (kind === 'SHORTEST') expect(sortedLengths(chosen), `${context}: ${pair}`).to.deep.equal(sortedLengths(ids).slice(0, k));
            else expect(chosen.length, `${context}: ${pair}`).to.equal(Math.min(k, ids.length));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the k shortest trails on a larger sparse graph, where a trail must go round the relationships it crossed', () => {
    let x = 7;
    const random = (below: number) => Math.floor(((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648) * below);
    const edges: Edge[] = Array.from({ length: 330 }, () => [random(300), random(300), 0]);
    const g = randomGraph(300, edges);
    const shape = shapes('{1,7}')[2]!;
    const got = g.rows(`MATCH p = SHORTEST 3 (a:N {i: 0})${shape.text}(b:N) RETURN a.i, b.i, [r IN relationships(p) | r.id]`) as [number, number, number[]][];
    const want = byPair(trails(300, edges, shape, 1, 7).filter(([a]) => a === 0));
    const found = byPair(got);
    expect([...found.keys()].sort()).to.deep.equal([...want.keys()].sort());
    for (const [pair, list] of want) expect(sortedLengths(found.get(pair)!.map((t) => t[2])), pair).to.deep.equal(sortedLengths(list.map((t) => t[2])).slice(0, 3));
  });

  it('answers where many partial trails can reach the end only over relationships they already crossed (300 nodes, 450 relationships)', () => {
    let x = 11;
    const random = (below: number) => Math.floor(((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648) * below);
    const edges: Edge[] = Array.from({ length: 450 }, () => [random(300), random(300), 0]);
    const g = randomGraph(300, edges);
    const reached = g.rows('MATCH p = ANY SHORTEST (a:N {i: 0})-[:T]->+(b:N) RETURN count(*)')[0]![0];
    const rows = g.rows('MATCH p = SHORTEST 3 (a:N {i: 0})-[:T]->+(b:N) RETURN b.i, count(*) AS paths');
    expect(rows.length).to.equal(reached);
    expect(rows.every(([, paths]) => (paths as number) >= 1 && (paths as number) <= 3)).to.equal(true);
  });

  it('matches a quantified relationship with an inline WHERE, without a selector, as every trail whose relationships pass it', () => {
    fc.assert(
      fc.property(graphs, fc.constantFrom(...quantifiers), fc.constantFrom<['out' | 'in' | 'both', string]>(['out', '-[r:T WHERE r.w <> 1]->'], ['in', '<-[r:T WHERE r.w <> 1]-'], ['both', '-[r:T WHERE r.w <> 1]-']), ({ n, edges }, [q, min, max], [direction, arrow]) => {
        const g = randomGraph(n, edges);
        const shape: Shape = { text: `${arrow}${q}`, direction, size: 1, allows: (e) => e[2] !== 1, rels: 'r' };
        const got = g.rows(`MATCH (a:N)${shape.text}(b:N) RETURN a.i, b.i, [x IN r | x.id]`);
        expect(ends(got), `${shape.text} on ${JSON.stringify(edges)}`).to.deep.equal(ends(trails(n, edges, shape, min, max)));
      }),
      { numRuns: 100 },
    );
  });

  describe('on a graph where listing every trail would not end (300 nodes, 900 relationships)', () => {
    const g = cypherGraph();
    before(() => {
      g.run('UNWIND range(1, 300) AS i CREATE (:P {i: i})');
      g.run('MATCH (a:P), (b:P) WHERE b.i = (a.i * 7 + 3) % 300 + 1 OR b.i = (a.i * 13 + 5) % 300 + 1 OR b.i = a.i + 1 CREATE (a)-[:K {w: a.i % 5, on: a.i % 3 <> 0}]->(b)');
    });
    const shortest = () => g.rows('MATCH p = shortestPath((a:P {i: 1})-[:K*]-(b:P {i: 150})) RETURN length(p)')[0]![0] as number;

    it('SHORTEST k: k paths, the first as short as shortestPath()', () => {
      const rows = g.rows('MATCH p = SHORTEST 3 (a:P {i: 1})-[:K]-+(b:P {i: 150}) RETURN length(p) ORDER BY length(p)');
      expect(rows).to.have.length(3);
      expect(rows[0]![0]).to.equal(shortest());
    });

    it('SHORTEST k GROUPS: every path of the two shortest lengths', () => {
      const rows = g.rows('MATCH p = SHORTEST 2 GROUPS (a:P {i: 1})-[:K]-+(b:P {i: 150}) RETURN length(p) AS l, count(*) ORDER BY l');
      expect(rows.map((r) => r[0])).to.deep.equal([shortest(), shortest() + 1]);
    });

    it('ANY k: k paths, to every node the start reaches', () => {
      expect(g.rows('MATCH p = ANY 2 (a:P {i: 1})-[:K]->+(b:P) RETURN count(DISTINCT b), count(*)')).to.deep.equal([[300, 600]]);
    });

    it('a property map on the quantified relationship, with SHORTEST k and an end node predicate', () => {
      const rows = g.rows('MATCH p = SHORTEST 2 (a:P {i: 1})-[:K {on: true}]-+(b:P WHERE b.i = 150) RETURN [r IN relationships(p) WHERE NOT r.on] AS off');
      expect(rows).to.deep.equal([[[]], [[]]]);
    });

    it('an inline WHERE on the quantified relationship', () => {
      const rows = g.rows('MATCH p = SHORTEST 2 (a:P {i: 1})-[r:K WHERE r.on]-+(b:P {i: 150}) RETURN [x IN r WHERE NOT x.on] AS off');
      expect(rows).to.deep.equal([[[]], [[]]]);
    });

    it('every relationship tested on the way, all(x IN r WHERE ...), for the predicate on the path', () => {
      const rows = g.rows('MATCH SHORTEST 2 (p = (a:P {i: 1})-[r:K]-+(b:P {i: 150}) WHERE all(x IN r WHERE x.on)) RETURN [x IN r WHERE NOT x.on] AS off');
      expect(rows).to.deep.equal([[[]], [[]]]);
    });

    it('a quantified path pattern with a WHERE, and a predicate on the whole path', () => {
      const rows = g.rows('MATCH SHORTEST 1 (p = (a:P {i: 1})((x)-[r:K]-(y) WHERE r.w > 0)+(b:P {i: 150}) WHERE length(p) > 4) RETURN length(p), all(w IN r WHERE w.w > 0)');
      expect(rows).to.deep.equal([[5, true]]);
    });
  });

  it('searches afresh for each input row when the moves read a variable of an earlier clause', () => {
    const g = randomGraph(4, [[0, 1, 1], [1, 2, 2], [0, 2, 0], [2, 3, 1], [0, 3, 2], [3, 0, 1], [1, 3, 2]]);
    const query = (lim: string) => `MATCH p = SHORTEST 2 (a:N)((x)-[r:T]->(y) WHERE r.w > ${lim})+(b:N) RETURN ${lim}, a.i, b.i, length(p)`;
    const together = g.rows(`UNWIND [1, 0] AS lim ${query('lim')}`);
    const apart = [...g.rows(query('0')), ...g.rows(query('1'))];
    expect(ends(together)).to.deep.equal(ends(apart));
    expect(g.rows(query('1')).length).to.be.lessThan(g.rows(query('0')).length);
  });

  it('searches afresh from each start node when the relationship\'s property map reads it', () => {
    const g = randomGraph(4, [[0, 1, 1], [1, 2, 1], [0, 2, 0], [2, 3, 0], [0, 3, 2], [3, 0, 1], [1, 3, 0]]);
    g.run('MATCH (n:N) SET n.w = n.i % 2');
    const together = g.rows('MATCH p = SHORTEST 2 (a:N)-[:T {w: a.w}]->+(b:N) RETURN a.i, b.i, length(p)');
    const apart = [0, 1, 2, 3].flatMap((i) => g.rows(`MATCH p = SHORTEST 2 (a:N {i: ${i}})-[:T {w: ${i % 2}}]->+(b:N) RETURN a.i, b.i, length(p)`));
    expect(ends(together)).to.deep.equal(ends(apart));
    expect(together.length).to.be.greaterThan(0);
  });
});
