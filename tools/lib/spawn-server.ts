import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../server/main.js', import.meta.url));

export interface ChildServer {
  child: ChildProcess;
  url: string;
  output(): string;
}

const START_TIMEOUT_MS = 60_000;

/** Servers still running are killed when this process exits, so a crashed tool leaves none behind. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * A tool stopped by SIGINT or SIGTERM (Ctrl-C, or `kill` on `npm run …`) passes the signal on,
 * so its servers shut down cleanly and release their ports and data dirs, then dies of it.
 */
function stopServersOn(signal: NodeJS.Signals): void {
  process.once(signal, () => {
    const children = [...running];
    for (const child of children) child.kill(signal);
    void Promise.all(children.map(exited)).then(() => process.kill(process.pid, signal));
  });
}
stopServersOn('SIGINT');
stopServersOn('SIGTERM');

/**
 * The real server as its own process; resolves once its "listening" log line appears (port 0
 * picks a free one), so SERVICE_LOG_LEVEL must be info or finer.
 */
export function spawnServer(dataDir: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, SERVICE_HOST: '127.0.0.1', SERVICE_PORT: '0', SERVICE_DATA_DIR: dataDir, SERVICE_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not report listening within ${START_TIMEOUT_MS} ms:\n${out}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: `http://127.0.0.1:${m[1]}`, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
