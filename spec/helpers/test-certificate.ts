import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { commandOnPath, requirePrerequisite } from './prerequisite.js';
import { tempDir } from './temp-dir.js';

/**
 * Registers, in the calling suite, a self-signed certificate for localhost and 127.0.0.1 made
 * with the openssl command before the suite (a prerequisite: required under CI) and removed,
 * with its directory `dir`, after it. Call it at the top of a `describe` callback; the paths are ready in tests and hooks.
 */
export function useTestCertificate(prefix: string): { cert: string; key: string; dir: string } {
  const certs = tempDir(prefix);
  const paths = { cert: join(certs.path, 'cert.pem'), key: join(certs.path, 'key.pem'), dir: certs.path };
  requirePrerequisite({ what: 'the openssl command (it makes the test certificate)', present: () => commandOnPath('openssl'), install: 'apt-get install -y openssl (as root; .ci/run does it)' });
  before(() => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', paths.key, '-out', paths.cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  });
  after(() => certs.remove());
  return paths;
}
