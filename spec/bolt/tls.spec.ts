import { expect } from 'chai';
import neo4j from 'neo4j-driver';
import { startTestServer } from '../helpers/http.js';
import { useTestCertificate } from '../helpers/test-certificate.js';

describe('bolt: TLS', () => {
  const { cert, key } = useTestCertificate('vgdb-bolt-tls-');

  it('serves Bolt over TLS when the TLS variables are set, checked against the certificate, and refuses plain Bolt there', async () => {
    const s = await startTestServer({ SERVICE_TLS_CERT: cert, SERVICE_TLS_KEY: key });
    try {
      expect(s.service.boltUrl).to.equal(`bolt+s://127.0.0.1:${s.service.boltPort}`);
      const address = `localhost:${s.service.boltPort}`;
      const secure = neo4j.driver(`bolt://${address}`, neo4j.auth.basic('neo4j', 'x'), { encrypted: 'ENCRYPTION_ON', trust: 'TRUST_CUSTOM_CA_SIGNED_CERTIFICATES', trustedCertificates: [cert] });
      try {
        expect((await secure.executeQuery('RETURN "over tls" AS s')).records[0]!.get('s')).to.equal('over tls');
      } finally {
        await secure.close();
      }
      const selfSigned = neo4j.driver(`bolt+ssc://${address}`, neo4j.auth.basic('neo4j', 'x'));
      try {
        await selfSigned.verifyConnectivity();
      } finally {
        await selfSigned.close();
      }
      const plain = neo4j.driver(`bolt://${address}`, neo4j.auth.basic('neo4j', 'x'), { connectionTimeout: 5000 });
      try {
        const err = await plain.verifyConnectivity().then(() => null, (e: Error) => e);
        expect(err).to.be.instanceOf(Error);
      } finally {
        await plain.close();
      }
    } finally {
      await s.stop();
      s.remove();
    }
  });
});
