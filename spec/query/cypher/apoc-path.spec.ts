import { expect } from 'chai';
import { cypherFailure, cypherGraph } from '../../helpers/cypher-graph.js';

/**
 * d -KNOWS-> a -KNOWS-> b -KNOWS-> c -WORKS_AT-> x:Company
 *            a -KNOWS-> e:Blocked -KNOWS-> f,  e -KNOWS-> c
 */
function graph() {
  const g = cypherGraph();
  g.run(`CREATE (a:Person {name: 'a'}), (b:Person {name: 'b'}), (c:Person {name: 'c'}), (d:Person {name: 'd'}),
    (e:Person:Blocked {name: 'e'}), (f:Person {name: 'f'}), (x:Company {name: 'x'}),
    (d)-[:KNOWS]->(a), (a)-[:KNOWS]->(b), (b)-[:KNOWS]->(c), (c)-[:WORKS_AT]->(x), (a)-[:KNOWS]->(e), (e)-[:KNOWS]->(f), (e)-[:KNOWS]->(c)`);
  /** Each path as its node names joined, e.g. 'a-b-c'. */
  const paths = (call: string, params: Record<string, unknown> = {}) =>
    g.rows(`MATCH (a {name: 'a'}) ${call} YIELD path RETURN reduce(s = '', n IN nodes(path) | s + CASE s WHEN '' THEN '' ELSE '-' END + n.name) AS p`, params).map((r) => r[0]);
  return { ...g, paths };
}

const sorted = (xs: unknown[]) => [...xs].sort();

describe('query/cypher: apoc.path (APOC path expander)', () => {
  describe('apoc.path.expand(start, relFilter, labelFilter, minLevel, maxLevel)', () => {
    it('follows the relationship filter: TYPE> out, <TYPE in, TYPE both ways, breadth-first', () => {
      const { paths } = graph();
      const out = paths(`CALL apoc.path.expand(a, 'KNOWS>', '', 1, 2)`);
      expect(sorted(out)).to.deep.equal(['a-b', 'a-b-c', 'a-e', 'a-e-c', 'a-e-f']);
      // Breadth-first: every path of length 1 before any of length 2.
      expect(out.slice(0, 2).every((p) => String(p).length === 3)).to.equal(true);
      expect(paths(`CALL apoc.path.expand(a, '<KNOWS', '', 1, 3)`)).to.deep.equal(['a-d']);
      expect(sorted(paths(`CALL apoc.path.expand(a, 'KNOWS', '', 1, 1)`))).to.deep.equal(['a-b', 'a-d', 'a-e']);
      expect(sorted(paths(`CALL apoc.path.expand(a, '>', '', 3, 3)`))).to.deep.equal(['a-b-c-x', 'a-e-c-x']);
      expect(sorted(paths(`CALL apoc.path.expand(a, 'KNOWS>|WORKS_AT>', '', 3, 3)`))).to.deep.equal(['a-b-c-x', 'a-e-c-x']);
    });

    it('answers the start node as a path of length 0 when minLevel is 0', () => {
      const { paths } = graph();
      expect(paths(`CALL apoc.path.expand(a, 'KNOWS>', '', 0, 1)`)[0]).to.equal('a');
    });

    it('reads the label filter: -deny prunes, +allow only, >end nodes, /terminator nodes', () => {
      const { paths } = graph();
      expect(sorted(paths(`CALL apoc.path.expand(a, 'KNOWS>', '-Blocked', 1, 5)`))).to.deep.equal(['a-b', 'a-b-c']);
      expect(sorted(paths(`CALL apoc.path.expand(a, '>', '+Person', 1, 5)`))).to.deep.equal(['a-b', 'a-b-c', 'a-e', 'a-e-c', 'a-e-f']);
      expect(sorted(paths(`CALL apoc.path.expand(a, '>', '>Company', 1, 5)`))).to.deep.equal(['a-b-c-x', 'a-e-c-x']);
      // A terminator ends the path there: nothing past e, and only paths ending at e.
      expect(paths(`CALL apoc.path.expand(a, '>', '/Blocked', 1, 5)`)).to.deep.equal(['a-e']);
      // Alternatives with |: end at a Company or stop at a Blocked node.
      expect(sorted(paths(`CALL apoc.path.expand(a, '>', '>Company|/Blocked', 1, 5)`))).to.deep.equal(['a-b-c-x', 'a-e']);
    });
  });

  describe('apoc.path.expandConfig(start, config)', () => {
    it('keeps each relationship once per path by default and each node once with NODE_GLOBAL', () => {
      const { paths } = graph();
      expect(paths(`CALL apoc.path.expandConfig(a, {relationshipFilter: 'KNOWS>|WORKS_AT>', minLevel: 3, maxLevel: 3})`).length).to.equal(2);
      const global = paths(`CALL apoc.path.expandConfig(a, {relationshipFilter: 'KNOWS>|WORKS_AT>', minLevel: 1, uniqueness: 'NODE_GLOBAL'})`);
      // c is reached once, by the first path that gets there (b before e).
      expect(sorted(global)).to.deep.equal(['a-b', 'a-b-c', 'a-b-c-x', 'a-e', 'a-e-f']);
      // NODE_PATH: no node twice in a path, following KNOWS both ways.
      const nodePath = paths(`CALL apoc.path.expandConfig(a, {relationshipFilter: 'KNOWS', uniqueness: 'NODE_PATH', minLevel: 1})`);
      expect(nodePath.every((p) => new Set(String(p).split('-')).size === String(p).split('-').length)).to.equal(true);
      expect(nodePath).to.include('a-b-c-e-f');
    });

    it('goes depth-first with bfs: false and stops at the limit', () => {
      const { paths } = graph();
      expect(paths(`CALL apoc.path.expandConfig(a, {relationshipFilter: 'KNOWS>', minLevel: 1, bfs: false, limit: 2})`)).to.deep.equal(['a-b', 'a-b-c']);
      expect(paths(`CALL apoc.path.expandConfig(a, {relationshipFilter: 'KNOWS>', minLevel: 1, limit: 2})`)).to.deep.equal(['a-b', 'a-e']);
    });

    it('takes endNodes, terminatorNodes, allowlistNodes and denylistNodes', () => {
      const { paths } = graph();
      const cfg = (extra: string) => `MATCH (c {name: 'c'}), (e {name: 'e'}), (b {name: 'b'}) CALL apoc.path.expandConfig(a, {relationshipFilter: '>', minLevel: 1, ${extra}})`;
      expect(sorted(paths(cfg('endNodes: [c]')))).to.deep.equal(['a-b-c', 'a-e-c']);
      expect(sorted(paths(cfg('terminatorNodes: [c]')))).to.deep.equal(['a-b-c', 'a-e-c']);
      expect(sorted(paths(cfg('denylistNodes: [e]')))).to.deep.equal(['a-b', 'a-b-c', 'a-b-c-x']);
      expect(sorted(paths(cfg('allowlistNodes: [b, c]')))).to.deep.equal(['a-b', 'a-b-c']);
    });

    it('repeats a relationship sequence and filters the start node on request', () => {
      const { paths } = graph();
      expect(sorted(paths(`CALL apoc.path.expandConfig(a, {relationshipFilter: 'KNOWS>,KNOWS>,WORKS_AT>', minLevel: 1})`))).to.deep.equal(['a-b', 'a-b-c', 'a-b-c-x', 'a-e', 'a-e-c', 'a-e-c-x', 'a-e-f']);
      expect(paths(`CALL apoc.path.expandConfig(a, {relationshipFilter: 'KNOWS>', labelFilter: 'Company', filterStartNode: true})`)).to.deep.equal([]);
      expect(paths(`CALL apoc.path.expandConfig(a, {relationshipFilter: 'KNOWS>', labelFilter: 'Company', maxLevel: 1})`)).to.deep.equal(['a']);
    });

    it('answers one null path with optional: true when nothing is found', () => {
      const { rows } = graph();
      expect(rows(`MATCH (a {name: 'a'}) CALL apoc.path.expandConfig(a, {relationshipFilter: 'NONE>', minLevel: 1, optional: true}) YIELD path RETURN path`)).to.deep.equal([[null]]);
    });

    it('refuses an unknown key, an unknown or unsupported uniqueness, as APOC words a failure', () => {
      const { rows } = graph();
      const fail = (cfg: string) => cypherFailure(() => rows(`MATCH (a {name: 'a'}) CALL apoc.path.expandConfig(a, ${cfg}) YIELD path RETURN path`));
      expect(fail('{relFilter: "KNOWS"}').message).to.match(/Failed to invoke procedure `apoc.path.expandConfig`: Caused by: java.lang.RuntimeException: unknown configuration key 'relFilter'/);
      expect(fail('{uniqueness: "SOMETIMES"}').message).to.include("Invalid uniqueness: 'SOMETIMES'. Must be one of:");
      expect(fail('{uniqueness: "NODE_RECENT"}').message).to.include('uniqueness NODE_RECENT is not supported');
    });
  });

  describe('apoc.path.subgraphNodes, subgraphAll, spanningTree', () => {
    it('reach each node once (NODE_GLOBAL), from the start node on', () => {
      const { rows } = graph();
      const nodes = rows(`MATCH (a {name: 'a'}) CALL apoc.path.subgraphNodes(a, {relationshipFilter: 'KNOWS>|WORKS_AT>'}) YIELD node RETURN node.name`).map((r) => r[0]);
      expect(sorted(nodes)).to.deep.equal(['a', 'b', 'c', 'e', 'f', 'x']);
      const minOne = rows(`MATCH (a {name: 'a'}) CALL apoc.path.subgraphNodes(a, {relationshipFilter: 'KNOWS>', minLevel: 1, maxLevel: 1}) YIELD node RETURN node.name`).map((r) => r[0]);
      expect(sorted(minOne)).to.deep.equal(['b', 'e']);
    });

    it('subgraphAll answers the nodes and every relationship among them', () => {
      const { rows } = graph();
      const [[nodes, rels]] = rows(`MATCH (a {name: 'a'}) CALL apoc.path.subgraphAll(a, {relationshipFilter: 'KNOWS>', labelFilter: '-Company'}) YIELD nodes, relationships
        RETURN [n IN nodes | n.name], [r IN relationships | startNode(r).name + '>' + endNode(r).name]`) as [[string[], string[]]];
      expect(sorted(nodes)).to.deep.equal(['a', 'b', 'c', 'e', 'f']);
      expect(sorted(rels)).to.deep.equal(['a>b', 'a>e', 'b>c', 'e>c', 'e>f']);
    });

    it('spanningTree answers one path to each node', () => {
      const { paths } = graph();
      expect(sorted(paths(`CALL apoc.path.spanningTree(a, {relationshipFilter: 'KNOWS>|WORKS_AT>', minLevel: 1})`))).to.deep.equal(['a-b', 'a-b-c', 'a-b-c-x', 'a-e', 'a-e-f']);
    });

    it('refuses a minLevel other than 0 or 1, as APOC does', () => {
      const { rows } = graph();
      expect(cypherFailure(() => rows(`MATCH (a {name: 'a'}) CALL apoc.path.subgraphNodes(a, {minLevel: 2}) YIELD node RETURN node`)).message).to.include('minLevel can only be 0 or 1 in subgraphNodes()');
    });

    it('takes a list of start nodes and node ids', () => {
      const { rows } = graph();
      const names = rows(`MATCH (b {name: 'b'}), (f {name: 'f'}) CALL apoc.path.subgraphNodes([b, id(f)], {relationshipFilter: 'KNOWS>', maxLevel: 1}) YIELD node RETURN node.name`).map((r) => r[0]);
      expect(sorted(names)).to.deep.equal(['b', 'c', 'f']);
    });
  });
});
