import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { connect } from 'node:http2';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { HealthCheckReplySchema, HealthCheckRequestSchema } from '@qdrant/js-client-grpc';
import { startTestServer } from '../helpers/http.js';
import { useTestCertificate } from '../helpers/test-certificate.js';

interface RawAnswer {
  headers: Record<string, unknown>;
  trailers: Record<string, unknown>;
  body: Buffer;
}

/** One unary call over HTTP/2 as a gRPC client sends it, trusting `ca`. */
function rawCall(url: string, ca: Buffer, path: string, message: Uint8Array): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const session = connect(url, { ca });
    session.on('error', reject);
    const prefix = Buffer.from([0, 0, 0, 0, 0]);
    prefix.writeUInt32BE(message.length, 1);
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
    const chunks: Buffer[] = [];
    let headers: Record<string, unknown> = {};
    let trailers: Record<string, unknown> = {};
    stream.on('response', (h) => (headers = h));
    stream.on('trailers', (t) => (trailers = t));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', reject);
    stream.on('end', () => {
      session.close();
      resolve({ headers, trailers, body: Buffer.concat(chunks) });
    });
    stream.end(Buffer.concat([prefix, message]));
  });
}

describe('qdrant-grpc: TLS', () => {
  const { cert, key } = useTestCertificate('vgdb-grpc-tls-');

  it('serves gRPC over TLS with the REST ports’ certificate, framed as gRPC (a message, then grpc-status in the trailers)', async () => {
    const s = await startTestServer({ SERVICE_TLS_CERT: cert, SERVICE_TLS_KEY: key });
    try {
      const url = s.service.qdrantGrpcUrl!;
      expect(url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
      const ca = readFileSync(cert);
      const health = await rawCall(url, ca, '/qdrant.Qdrant/HealthCheck', toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema)));
      expect(health.headers[':status']).to.equal(200);
      expect(health.headers['content-type']).to.equal('application/grpc');
      expect(health.trailers['grpc-status']).to.equal('0');
      expect(health.body[0]).to.equal(0);
      expect(health.body.readUInt32BE(1)).to.equal(health.body.length - 5);
      expect(fromBinary(HealthCheckReplySchema, health.body.subarray(5)).version).to.equal('1.18.0');

      const unknown = await rawCall(url, ca, '/qdrant.Points/NoSuchMethod', new Uint8Array());
      expect(unknown.headers['grpc-status']).to.equal('12');
      expect(unknown.headers['grpc-message']).to.equal("qdrant.Points/NoSuchMethod is not implemented by this server (see the README's Qdrant gRPC section for the methods served)");
      expect(unknown.body.length).to.equal(0);
    } finally {
      await s.stop();
      s.remove();
    }
  });
});
