import { expect } from 'chai';
import neo4j from 'neo4j-driver-5';
import { useTestServer } from '../helpers/http.js';

describe('bolt: neo4j-driver 5.x (the release many apps still pin) against the server', () => {
  const server = useTestServer({}, 'each');
  const url = (scheme: string) => `${scheme}://127.0.0.1:${server.service.boltPort}`;

  it('negotiates, routes, writes and reads with bookmarks, rolls back, and reports errors with Neo4j codes', async () => {
    for (const scheme of ['bolt', 'neo4j']) {
      const driver = neo4j.driver(url(scheme), neo4j.auth.basic('neo4j', 'any'));
      try {
        const info = await driver.getServerInfo();
        expect(info.protocolVersion, scheme).to.be.at.least(5);
      } finally {
        await driver.close();
      }
    }
    const driver = neo4j.driver(url('neo4j'), neo4j.auth.basic('neo4j', 'any'));
    try {
      const writer = driver.session();
      await writer.executeWrite((tx) => tx.run('UNWIND range(1, 3) AS i CREATE (:Item {i: i, ratio: i / 4.0})'));
      const bookmarks = writer.lastBookmarks();
      await writer.close();
      const reader = driver.session({ bookmarks, defaultAccessMode: neo4j.session.READ });
      const rows = await reader.executeRead((tx) => tx.run('MATCH (n:Item) RETURN n, n.i AS i, n.ratio AS ratio ORDER BY i'));
      await reader.close();
      expect(rows.records.map((r) => [r.get('i').toNumber(), r.get('ratio')])).to.deep.equal([[1, 0.25], [2, 0.5], [3, 0.75]]);
      const node = rows.records[0]!.get('n');
      expect(node.labels).to.deep.equal(['Item']);
      expect(node.elementId).to.be.a('string');

      const session = driver.session();
      const tx = await session.beginTransaction();
      await tx.run('CREATE (:Item {i: 99})');
      expect((await tx.run('MATCH (n:Item {i: 99}) RETURN count(n) AS c')).records[0]!.get('c').toNumber()).to.equal(1);
      await tx.rollback();
      expect((await session.run('MATCH (n:Item {i: 99}) RETURN count(n) AS c')).records[0]!.get('c').toNumber()).to.equal(0);
      const err = await session.run('MATCH (n RETURN n').then(() => null, (e: { code: string }) => e);
      expect(err?.code).to.equal('Neo.ClientError.Statement.SyntaxError');
      await session.close();
    } finally {
      await driver.close();
    }
  });
});
