import { expect } from 'chai';
import neo4j, { isNode, isPath, isRelationship, type Node, type Path, type Relationship } from 'neo4j-driver';
import { useTestServer } from '../helpers/http.js';

describe('bolt: quantified path patterns and path selectors through neo4j-driver', () => {
  const server = useTestServer();

  it('reads group variables back as lists of Nodes and Relationships, and the path as a Path in path order', async () => {
    const driver = neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
    try {
      await driver.executeQuery("CREATE (:Stop {n: 'a'})-[:NEXT {min: 4}]->(:Stop {n: 'b'})-[:NEXT {min: 6}]->(:Stop {n: 'c'}), (:Stop {n: 'c2'})");
      const { records } = await driver.executeQuery(
        "MATCH p = (a:Stop {n: 'a'})((x:Stop)-[r:NEXT]->(y:Stop) WHERE r.min > 1)+(c:Stop {n: 'c'}) RETURN p, x, r, y",
      );
      expect(records).to.have.length(1);
      const p = records[0]!.get('p') as Path;
      expect(isPath(p)).to.equal(true);
      expect(p.length).to.equal(2);
      expect([p.start, ...p.segments.map((s) => s.end)].map((n) => n.properties.n)).to.deep.equal(['a', 'b', 'c']);
      expect(p.segments.map((s) => s.relationship.properties.min.toNumber())).to.deep.equal([4, 6]);
      const x = records[0]!.get('x') as Node[];
      const r = records[0]!.get('r') as Relationship[];
      const y = records[0]!.get('y') as Node[];
      expect(x.every(isNode) && y.every(isNode) && r.every(isRelationship)).to.equal(true);
      expect(x.map((n) => n.properties.n)).to.deep.equal(['a', 'b']);
      expect(y.map((n) => n.properties.n)).to.deep.equal(['b', 'c']);
      expect(r.map((e) => e.elementId)).to.deep.equal(p.segments.map((s) => s.relationship.elementId));
      expect(r[1]!.startNodeElementId).to.equal(x[1]!.elementId);

      const shortest = await driver.executeQuery("MATCH p = SHORTEST 1 (a:Stop {n: 'a'})-[:NEXT]->+(z) RETURN z.n AS z, length(p) AS hops ORDER BY z");
      expect(shortest.records.map((rec) => [rec.get('z'), rec.get('hops').toNumber()])).to.deep.equal([['b', 1], ['c', 2]]);

      const refused = await driver.executeQuery('MATCH SHORTEST 1 (a:Stop)-[:NEXT]->(b) RETURN b').then(() => null, (e: { code: string; message: string }) => e);
      expect(refused?.code).to.equal('Neo.ClientError.Statement.SyntaxError');
      expect(refused?.message).to.match(/needs a pattern of variable length/);
    } finally {
      await driver.close();
    }
  });
});
