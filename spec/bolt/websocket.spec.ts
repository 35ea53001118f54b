import { expect } from 'chai';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import neo4j from 'neo4j-driver';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import { CHROMIUM, launchChromium } from '../browser/console-harness.js';
import { startTestServer, useTestServer, type TestServer } from '../helpers/http.js';
import { isExecutable, requirePrerequisite } from '../helpers/prerequisite.js';
import { useTestCertificate } from '../helpers/test-certificate.js';

/** neo4j-driver's build for web pages: it speaks Bolt through the browser's WebSocket. */
const DRIVER_FOR_PAGES = createRequire(import.meta.url).resolve('neo4j-driver/lib/browser/neo4j-web.min.js');
/** Bolt's preamble and one version offer (5.8 down to 5.0), as a driver opens. */
const HANDSHAKE = Buffer.from([0x60, 0x60, 0xb0, 0x17, 0, 8, 8, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

/** The first binary message a WebSocket client receives after sending the handshake. */
function versionOver(ws: WebSocket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(HANDSHAKE));
    ws.once('message', (data: Buffer) => resolve(data));
  });
}

/** Sends raw bytes to a port and collects what comes back until the server closes the connection. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

describe('bolt: over WebSocket on the Bolt port, as browsers connect', function () {
  this.timeout(120_000);

  describe('the byte stream', () => {
    const server = useTestServer();

    it('answers the Bolt handshake sent inside a WebSocket with the version chosen', async () => {
      const ws = new WebSocket(`ws://127.0.0.1:${server.service.boltPort}`);
      try {
        expect([...(await versionOver(ws))]).to.deep.equal([0, 0, 8, 5]);
      } finally {
        ws.close();
      }
    });

    it('answers a plain HTTP request with 426, naming the two ways in, and closes', async () => {
      const answer = await rawExchange(server.service.boltPort!, 'GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
      expect(answer).to.match(/^HTTP\/1\.1 426 /);
      expect(answer).to.contain('bolt://').and.to.contain('ws://');
    });
  });

  describe('with TLS', () => {
    const { cert, key } = useTestCertificate('vgdb-bolt-wss-');

    it('serves wss:// on the TLS Bolt port, checked against the certificate', async () => {
      const s = await startTestServer({ SERVICE_TLS_CERT: cert, SERVICE_TLS_KEY: key });
      try {
        const ws = new WebSocket(`wss://localhost:${s.service.boltPort}`, { ca: readFileSync(cert) });
        try {
          expect([...(await versionOver(ws))]).to.deep.equal([0, 0, 8, 5]);
        } finally {
          ws.close();
        }
      } finally {
        await s.stop();
        s.remove();
      }
    });
  });

  describe("neo4j-driver's web build in headless Chromium", () => {
    let browser: Browser;
    let page: Page;
    let s: TestServer;
    requirePrerequisite({ what: `Chromium at ${CHROMIUM}`, present: () => isExecutable(CHROMIUM), install: 'apt-get install -y chromium (as root; .ci/run does it), or set CHROMIUM_PATH' });
    before(async () => {
      s = await startTestServer({ SERVICE_API_KEYS: 'page-secret' });
      browser = await launchChromium();
      page = await browser.newPage();
      await page.addScriptTag({ path: DRIVER_FOR_PAGES });
    });
    after(async () => {
      await browser?.close();
      await s?.stop();
      s?.remove();
    });

    /** Runs queries with the page's driver and answers each record as a plain object. */
    const inPage = (password: string, queries: { text: string; params?: Record<string, unknown> }[]) =>
      page.evaluate(
        async ({ url, password, queries }) => {
          const n = (window as unknown as { neo4j: typeof neo4j }).neo4j;
          const driver = n.driver(url, n.auth.basic('neo4j', password), { disableLosslessIntegers: true });
          try {
            const answers: unknown[][] = [];
            for (const q of queries) answers.push((await driver.executeQuery(q.text, q.params ?? {})).records.map((r) => r.toObject()));
            return { answers, error: null };
          } catch (e) {
            return { answers: [], error: String((e as { code?: string }).code ?? e) };
          } finally {
            await driver.close();
          }
        },
        { url: `bolt://127.0.0.1:${s.service.boltPort}`, password, queries },
      );

    it('writes and reads through the WebSocket, into the database drivers over TCP read', async () => {
      const { answers, error } = await inPage('page-secret', [
        { text: 'CREATE (n:Web {name: $name}) RETURN n.name AS name', params: { name: 'from a page' } },
        { text: 'UNWIND range(1, 3000) AS i RETURN i, "row " + i AS label' },
      ]);
      expect(error).to.equal(null);
      expect(answers[0]).to.deep.equal([{ name: 'from a page' }]);
      // Three thousand records come back in many WebSocket messages, in order.
      expect(answers[1]!.length).to.equal(3000);
      expect(answers[1]![2999]).to.deep.equal({ i: 3000, label: 'row 3000' });
      const tcp = neo4j.driver(`bolt://127.0.0.1:${s.service.boltPort}`, neo4j.auth.basic('neo4j', 'page-secret'));
      try {
        expect((await tcp.executeQuery('MATCH (n:Web) RETURN n.name AS name')).records.map((r) => r.get('name'))).to.deep.equal(['from a page']);
      } finally {
        await tcp.close();
      }
    });

    it('refuses wrong credentials from a page as over TCP', async () => {
      const { error } = await inPage('wrong', [{ text: 'RETURN 1' }]);
      expect(error).to.equal('Neo.ClientError.Security.Unauthorized');
    });
  });
});
