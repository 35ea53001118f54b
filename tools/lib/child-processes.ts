import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** Children still running are killed when this process exits, so a crashed tool or test leaves none behind. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Resolves with a child's exit code once it has exited (null when a signal ended it). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * A tool stopped by SIGINT or SIGTERM (Ctrl-C, or `kill` on `npm run …`) passes the signal on,
 * so its children shut down cleanly and release their ports and data dirs, then dies of it.
 */
function stopChildrenOn(signal: NodeJS.Signals): void {
  process.once(signal, () => {
    const children = [...running];
    for (const child of children) child.kill(signal);
    void Promise.all(children.map(exited)).then(() => process.kill(process.pid, signal));
  });
}
stopChildrenOn('SIGINT');
stopChildrenOn('SIGTERM');

/** Registers a child to be killed if this process exits while it runs. */
export function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/** A loopback TCP port nobody listens on now (the OS's pick). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * `n` distinct ports free now: all probed at once, since one port probed and closed may be handed
 * out again by the next probe (two NATS nodes on one port).
 */
export async function freePorts(n: number): Promise<number[]> {
  const probes = Array.from({ length: n }, () => createServer());
  try {
    return await Promise.all(
      probes.map(
        (probe) =>
          new Promise<number>((resolve, reject) => {
            probe.once('error', reject);
            probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port));
          }),
      ),
    );
  } finally {
    await Promise.all(probes.map((probe) => new Promise<void>((resolve) => (probe.listening ? probe.close(() => resolve()) : resolve()))));
  }
}
