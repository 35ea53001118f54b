import type { ReplicaSet } from '../../tools/lib/replica-set.js';
import { NATS_SERVER, natsServerPresent, ReplicaSet as Replicas } from '../helpers/replica-set.js';
import { requirePrerequisite } from '../helpers/prerequisite.js';
import { tempDir } from '../helpers/temp-dir.js';
import { createCollection } from './writes.js';

/**
 * Registers a suite's replica set: a 3-node JetStream cluster, a primary and `replicas`
 * replicas as real processes (with `env`), and the test collection made on the primary;
 * stopped and removed after. Without nats-server the suite is skipped loudly (under CI, failed).
 */
export function useReplicaSet(tag: string, replicas: number, env: Record<string, string> = {}): { readonly set: ReplicaSet } {
  requirePrerequisite({ what: `nats-server (${NATS_SERVER})`, present: natsServerPresent, install: 'apt-get install -y nats-server (as root; .ci/run does it), or set NATS_SERVER_PATH' });
  const dir = tempDir(`vgdb-repl-${tag}-`);
  let set: ReplicaSet | null = null;
  before(async () => {
    set = await Replicas.start(dir.path, replicas, env);
    await createCollection(set.url('primary'));
  });
  after(async () => {
    await set?.stop();
    dir.remove();
  });
  return {
    get set() {
      return set!;
    },
  };
}
