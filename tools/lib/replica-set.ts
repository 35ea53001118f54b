import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { exited, spawnServer, type ChildServer } from './spawn-server.js';
import { NatsCluster } from './nats-cluster.js';

/**
 * A primary and its replicas as real server processes over a real 3-node JetStream cluster,
 * each with its own data dir under `dir`; any of them can be killed and started again.
 */
export class ReplicaSet {
  /** The servers by name: "primary", "replica1", ... as first started. */
  readonly servers = new Map<string, ChildServer>();
  /** The URL replicas are told to bootstrap from. */
  primaryUrl = '';

  private constructor(readonly dir: string, readonly nats: NatsCluster, private readonly env: Record<string, string>) {}

  static async start(dir: string, replicas: number, env: Record<string, string> = {}): Promise<ReplicaSet> {
    const nats = await NatsCluster.start(join(dir, 'nats'));
    const set = new ReplicaSet(dir, nats, env);
    try {
      await set.startServer('primary', 'primary');
      set.primaryUrl = set.url('primary');
      await Promise.all(Array.from({ length: replicas }, (_, i) => set.startServer(`replica${i + 1}`, 'replica')));
    } catch (err) {
      await set.stop();
      throw err;
    }
    return set;
  }

  dataDir(name: string): string {
    return join(this.dir, name);
  }

  url(name: string): string {
    const s = this.servers.get(name);
    if (!s) throw new Error(`server ${name} is not running`);
    return s.url;
  }

  /** Starts (or starts again, on its data dir) the server `name` in a role. */
  async startServer(name: string, role: 'primary' | 'replica', env: Record<string, string> = {}): Promise<ChildServer> {
    mkdirSync(this.dataDir(name), { recursive: true });
    const server = await spawnServer(this.dataDir(name), {
      SERVICE_NATS_URL: this.nats.url,
      SERVICE_ROLE: role,
      ...(role === 'replica' ? { SERVICE_PRIMARY_URL: this.primaryUrl } : {}),
      ...this.env,
      ...env,
    });
    this.servers.set(name, server);
    return server;
  }

  /** Stops a server cleanly (SIGTERM: the shutdown snapshot is written). */
  stopServer(name: string): Promise<void> {
    return this.signal(name, 'SIGTERM');
  }

  /** SIGKILLs a server. */
  kill(name: string): Promise<void> {
    return this.signal(name, 'SIGKILL');
  }

  private async signal(name: string, signal: NodeJS.Signals): Promise<void> {
    const s = this.servers.get(name);
    if (!s) return;
    this.servers.delete(name);
    s.child.kill(signal);
    await exited(s.child);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.servers.keys()].map((name) => this.kill(name)));
    await this.nats.stop();
  }
}
