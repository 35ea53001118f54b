import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Follower } from '../../replication/follower.js';
import { ensureStream, messageAt, streamHead, type StreamMessage } from '../../replication/stream.js';
import { Engine } from '../../storage/engine/engine.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { NatsCluster } from '../../tools/lib/nats-cluster.js';
import { NATS_SERVER, natsServerPresent } from '../helpers/replica-set.js';
import { requirePrerequisite } from '../helpers/prerequisite.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A suite's real 3-node JetStream cluster, with `stream` made fresh for each test. */
export interface JetStreamFixture {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
}

/** Starts the cluster before the suite (nats-server required under CI), and makes and deletes `stream` around each test. */
export function useJetStream(stream: string): JetStreamFixture {
  requirePrerequisite({ what: `nats-server (${NATS_SERVER})`, present: natsServerPresent, install: 'apt-get install -y nats-server (as root; .ci/run does it), or set NATS_SERVER_PATH' });
  const dir = tempDir('vgdb-jetstream-');
  let cluster: NatsCluster | undefined;
  let nc: NatsConnection | undefined;
  const fixture = {} as { js: JetStreamClient; jsm: JetStreamManager };
  before(async () => {
    cluster = await NatsCluster.start(join(dir.path, 'nats'));
    nc = await connect({ servers: cluster.url });
    fixture.js = jetstream(nc);
    fixture.jsm = await jetstreamManager(nc);
  });
  beforeEach(() => ensureStream(fixture.jsm, { name: stream, replicas: 1 }));
  afterEach(() => fixture.jsm.streams.delete(stream));
  after(async () => {
    await nc?.close();
    await cluster?.stop();
    dir.remove();
  });
  return fixture;
}

/** Every message the stream holds, read back. */
export async function streamMessages(jsm: JetStreamManager, stream: string): Promise<StreamMessage[]> {
  const { seq, first } = await streamHead(jsm, stream);
  const all = [];
  for (let s = first; s <= seq; s++) all.push((await messageAt(jsm, stream, s))!);
  return all;
}

/** A replica's engine on its own LMDB log in `dir`, following `stream` until it has applied `opId` or stopped. */
export async function follow(dir: string, { js, jsm }: JetStreamFixture, stream: string, opId: number): Promise<{ engine: Engine; stopped: string[] }> {
  const engine = new Engine(LmdbLog.open(dir));
  await engine.start();
  const stopped: string[] = [];
  const follower = new Follower({ js, jsm, stream, engine, onPrimary: () => undefined, onStopped: (r) => stopped.push(r), onRetry: () => undefined });
  await follower.start();
  for (let waited = 0; engine.lastAppliedOperationId < opId && stopped.length === 0 && waited < 20_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  await follower.stop();
  return { engine, stopped };
}
