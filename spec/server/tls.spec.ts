import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { startTestServer } from '../helpers/http.js';
import { useTestCertificate } from '../helpers/test-certificate.js';

function httpsGet(url: string, ca: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function startFailure(env: Record<string, string>): Promise<string> {
  try {
    const s = await startTestServer(env);
    await s.stop();
    s.remove();
  } catch (err) {
    return (err as Error).message;
  }
  return 'started';
}

describe('server: TLS', () => {
  const { cert, key, dir } = useTestCertificate('vgdb-tls-');

  it('serves HTTPS only when both variables are set, with a certificate made here', async () => {
    const s = await startTestServer({ SERVICE_TLS_CERT: cert, SERVICE_TLS_KEY: key });
    try {
      expect(s.url).to.match(/^https:\/\//);
      const res = await httpsGet(`${s.url}/collections`, readFileSync(cert));
      expect(res.status).to.equal(200);
      expect(JSON.parse(res.body).status).to.equal('ok');
      let plainFailed = false;
      try {
        const plain = await fetch(s.url.replace('https:', 'http:') + '/health');
        plainFailed = plain.status !== 200;
      } catch {
        plainFailed = true;
      }
      expect(plainFailed, 'plain HTTP must not be served on the TLS port').to.equal(true);

      expect(s.service.qdrantUrl, 'the Qdrant dialect port is TLS too').to.match(/^https:\/\//);
      const qdrant = await httpsGet(`${s.service.qdrantUrl}/collections`, readFileSync(cert));
      expect(qdrant.status).to.equal(200);
      expect(JSON.parse(qdrant.body)).to.have.property('result');
      let qdrantPlainFailed = false;
      try {
        qdrantPlainFailed = (await fetch(s.service.qdrantUrl!.replace('https:', 'http:') + '/collections')).status !== 200;
      } catch {
        qdrantPlainFailed = true;
      }
      expect(qdrantPlainFailed, 'plain HTTP must not be served on the Qdrant TLS port').to.equal(true);
    } finally {
      await s.stop();
      s.remove();
    }
  });

  it('stops start-up with a message naming the problem for missing, half-set or bad TLS files', async () => {
    expect(await startFailure({ SERVICE_TLS_CERT: join(dir, 'nope.pem'), SERVICE_TLS_KEY: key })).to.match(/SERVICE_TLS_CERT: cannot read .*nope\.pem/);
    expect(await startFailure({ SERVICE_TLS_CERT: cert, SERVICE_TLS_KEY: join(dir, 'nokey.pem') })).to.match(/SERVICE_TLS_KEY: cannot read/);
    expect(await startFailure({ SERVICE_TLS_CERT: cert })).to.match(/set both SERVICE_TLS_CERT and SERVICE_TLS_KEY/);
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    expect(await startFailure({ SERVICE_TLS_CERT: junk, SERVICE_TLS_KEY: key })).to.match(/matching PEM certificate and private key/);
  });
});
