import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePorts, killOnExit } from './child-processes.js';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

/** Debian installs nats-server in /usr/sbin, which a user's PATH may lack. */
export const NATS_SERVER = process.env.NATS_SERVER_PATH ?? (['/usr/sbin/nats-server', '/usr/bin/nats-server'].find((p) => spawnSync(p, ['--version']).status === 0) ?? 'nats-server');

export function natsServerPresent(): boolean {
  return spawnSync(NATS_SERVER, ['--version']).status === 0;
}

const READY_TIMEOUT_MS = 30_000;


interface Node {
  name: string;
  port: number;
  clusterPort: number;
  storeDir: string;
  child: ChildProcess | null;
  output: string;
}

/**
 * A JetStream cluster of real nats-server processes on loopback, on free ports, each with its
 * own store directory under `dir`. Nodes can be killed and started again on the same port
 * and store, as a machine that reboots.
 */
export class NatsCluster {
  private constructor(private readonly nodes: Node[]) {}

  static async start(dir: string, size = 3): Promise<NatsCluster> {
    const nodes: Node[] = [];
    const ports = await freePorts(2 * size);
    for (let i = 0; i < size; i++) nodes.push({ name: `n${i + 1}`, port: ports[2 * i]!, clusterPort: ports[2 * i + 1]!, storeDir: join(dir, `nats-n${i + 1}`), child: null, output: '' });
    const cluster = new NatsCluster(nodes);
    for (let i = 0; i < size; i++) cluster.launch(i);
    await cluster.ready();
    return cluster;
  }

  /** SERVICE_NATS_URL for the whole cluster. */
  get url(): string {
    return this.nodes.map((n) => `nats://127.0.0.1:${n.port}`).join(',');
  }

  get size(): number {
    return this.nodes.length;
  }

  isRunning(i: number): boolean {
    return this.nodes[i]!.child !== null;
  }

  private launch(i: number): void {
    const node = this.nodes[i]!;
    mkdirSync(node.storeDir, { recursive: true });
    const routes = this.nodes.filter((n) => n !== node).map((n) => `nats://127.0.0.1:${n.clusterPort}`).join(',');
    const child = spawn(NATS_SERVER, ['-js', '-sd', node.storeDir, '-a', '127.0.0.1', '-p', String(node.port), '-n', node.name, '--cluster_name', 'vgdb', '--cluster', `nats://127.0.0.1:${node.clusterPort}`, '--routes', routes], { stdio: ['ignore', 'pipe', 'pipe'] });
    node.child = child;
    node.output = '';
    killOnExit(child);
    const keep = (chunk: Buffer): void => {
      if (node.output.length < 1 << 16) node.output += chunk.toString();
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('exit', () => {
      if (node.child === child) node.child = null;
    });
  }

  /** Waits until JetStream answers through the cluster (a meta leader is elected). */
  async ready(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    const servers = this.nodes.filter((n) => n.child).map((n) => `nats://127.0.0.1:${n.port}`);
    for (;;) {
      try {
        const nc = await connect({ servers, timeout: 1_000 });
        try {
          const jsm = await jetstreamManager(nc, { timeout: 1_000 });
          await jsm.getAccountInfo();
          return;
        } finally {
          await nc.close();
        }
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`the NATS cluster was not ready within ${READY_TIMEOUT_MS} ms: ${(err as Error).message}\n${this.nodes.map((n) => n.output).join('\n')}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** The index of the node leading a stream's group just now. */
  async leaderOf(stream: string): Promise<number> {
    const nc = await connect({ servers: this.url.split(','), timeout: 1_000 });
    try {
      const info = await (await jetstreamManager(nc)).streams.info(stream);
      const leader = info.cluster?.leader;
      const i = this.nodes.findIndex((n) => n.name === leader);
      if (i < 0) throw new Error(`stream ${stream} has no leader just now`);
      return i;
    } finally {
      await nc.close();
    }
  }

  /** SIGKILLs node i; resolves once it is gone. */
  async kill(i: number): Promise<void> {
    const child = this.nodes[i]!.child;
    if (!child) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await gone;
  }

  /** Starts node i again on its port and store. */
  restart(i: number): void {
    if (!this.nodes[i]!.child) this.launch(i);
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((_, i) => this.kill(i)));
  }
}
