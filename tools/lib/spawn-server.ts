import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { exited, freePort, killOnExit } from './child-processes.js';

export { exited };

const MAIN = fileURLToPath(new URL('../../server/main.js', import.meta.url));

export interface ChildServer {
  child: ChildProcess;
  url: string;
  /** What the server wrote, up to the first MiB (start-up lines included). */
  output(): string;
}

export interface SpawnOptions {
  /** A file descriptor for the server's stdout instead of a pipe this process reads. */
  stdout?: number;
}

const START_TIMEOUT_MS = 60_000;
const KEPT_OUTPUT_CHARS = 1 << 20;


/** Resolves once GET /readyz answers (for a server whose stdout this process cannot read). */
async function healthy(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited with ${child.exitCode ?? child.signalCode} before answering`);
    try {
      // Ready, not only listening: the log is replayed, so requests are answered, not held off with 503.
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`server was not ready (/readyz) within ${START_TIMEOUT_MS} ms`);
}

/**
 * The real server as its own process; resolves once its "listening" log line appears (port 0
 * picks a free one), so SERVICE_LOG_LEVEL must be info or finer. With `stdout` given, a free
 * port is picked here and the server is ready once /readyz answers.
 */
export async function spawnServer(dataDir: string, env: Record<string, string> = {}, options: SpawnOptions = {}): Promise<ChildServer> {
  const port = options.stdout === undefined ? '0' : String(await freePort());
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, SERVICE_HOST: '127.0.0.1', SERVICE_PORT: port, SERVICE_QDRANT_PORT: '0', SERVICE_QDRANT_GRPC_PORT: '0', SERVICE_BOLT_PORT: '0', SERVICE_DATA_DIR: dataDir, SERVICE_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
  });
  killOnExit(child);
  let out = '';
  const keep = (chunk: Buffer): void => {
    if (out.length < KEPT_OUTPUT_CHARS) out += chunk.toString();
  };
  child.stdout?.on('data', keep);
  child.stderr!.on('data', keep);
  if (options.stdout !== undefined) {
    const url = `http://127.0.0.1:${port}`;
    await healthy(url, child);
    return { child, url, output: () => out };
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not report listening within ${START_TIMEOUT_MS} ms:\n${out}`));
    }, START_TIMEOUT_MS);
    const onData = (): void => {
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      resolve({ child, url: `http://127.0.0.1:${m[1]}`, output: () => out });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
}

