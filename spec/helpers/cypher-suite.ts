import neo4j, { type Driver } from 'neo4j-driver';
import { call, useTestServer, type SuiteServer } from './http.js';

/**
 * A suite that runs Cypher both ways on a fresh server per test: `query` posts to REST's
 * /collections/g/graph/query, `bolt` is a neo4j-driver opened on first use and closed after each
 * test (or by `closeBolt`, before a restart).
 */
export function useCypherSuite(): { server: SuiteServer; bolt: () => Driver; closeBolt: () => Promise<void>; query: (q: string, parameters?: Record<string, unknown>) => ReturnType<typeof call> } {
  const server = useTestServer({}, 'each');
  let driver: Driver | null = null;
  const closeBolt = async () => {
    await driver?.close();
    driver = null;
  };
  afterEach(closeBolt);
  return {
    server,
    closeBolt,
    bolt: () => (driver ??= neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'))),
    query: (q, parameters = {}) => call(server.url, 'POST', '/collections/g/graph/query', { query: q, parameters }),
  };
}
