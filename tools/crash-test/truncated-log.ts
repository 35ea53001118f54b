import { existsSync, mkdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { decodeMark, type HighWaterMark } from '../../storage/snapshot/high-water-mark.js';
import { HttpClient } from '../lib/http-client.js';
import { exited, spawnServer, type ChildServer } from '../lib/spawn-server.js';

const WRITERS = 4;
const ACKNOWLEDGED_BEFORE_CUT = 100;
const ENV = { SERVICE_SNAPSHOT_EVERY: '25' };

const markFile = (dataDir: string): string => join(dataDir, 'snapshots', 'high-water-mark');
const readMark = (dataDir: string): HighWaterMark | null => (existsSync(markFile(dataDir)) ? decodeMark(readFileSync(markFile(dataDir))) : null);

async function kill(server: ChildServer): Promise<void> {
  server.child.kill('SIGKILL');
  await exited(server.child);
}

/** The start-up refusal's message, or null when the server started. */
async function refusal(dataDir: string): Promise<string | null> {
  try {
    await kill(await spawnServer(dataDir, ENV));
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The points of `ids` that a server on `dataDir` holds. */
async function presentIn(dataDir: string, env: Record<string, string>, ids: number[]): Promise<Set<number>> {
  const server = await spawnServer(dataDir, env);
  try {
    const res = await fetch(`${server.url}/collections/loss/points`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ids }) });
    return new Set(((await res.json()) as { result: { id: number }[] }).result.map((p) => p.id));
  } finally {
    await kill(server);
  }
}

/**
 * Start-up may rightly find the log whole after the cut: LMDB reuses freed pages, so the live
 * pages can all lie in the half kept, and the cut took only free ones. Then every acknowledged
 * write must be there.
 */
async function startedWhole(dataDir: string, acknowledged: ReadonlyMap<number, number>, say: (line: string) => void): Promise<string[]> {
  const present = await presentIn(dataDir, ENV, [...acknowledged.keys()]);
  const lost = [...acknowledged].filter(([id]) => !present.has(id));
  if (lost.length > 0) return [`the server started on a data.mdb truncated under it, and ${lost.length} acknowledged writes are gone, e.g. point ${lost[0]![0]} (operation ${lost[0]![1]})`];
  say(`data.mdb cut short under the server: the cut took only free pages; start-up found the log whole and all ${acknowledged.size} acknowledged writes are there`);
  return [];
}

/**
 * Cuts data.mdb in half under a running server that is taking acknowledged writes, once its
 * high-water mark has passed them, then SIGKILLs it. Start-up must refuse, naming the operations
 * lost; with SERVICE_ACCEPT_LOSS=1 it must start, and every write acknowledged at or below the
 * mark must be there or have its operation_id in the range named. Runs in a data dir of its own
 * under `parent`.
 */
export async function truncatedUnderServer(parent: string, say: (line: string) => void): Promise<string[]> {
  const dataDir = join(parent, 'truncated-under-server');
  mkdirSync(dataDir);
  const server = await spawnServer(dataDir, ENV);
  const client = new HttpClient(server.url, WRITERS);
  await client.json('PUT', '/collections/loss', JSON.stringify({ vectors: { size: 2, distance: 'Euclid' } }));
  const acknowledged = new Map<number, number>();
  let next = 0;
  let killed = false;
  const writers = Array.from({ length: WRITERS }, async () => {
    while (!killed) {
      const id = next++;
      const res = (await client.json('PUT', '/collections/loss/points', JSON.stringify({ points: [{ id, vector: [id, 1] }] }))) as { result: { operation_id: number } };
      acknowledged.set(id, res.result.operation_id);
    }
  });
  let writersEnded = false;
  const runs = Promise.allSettled(writers).finally(() => (writersEnded = true));
  while (acknowledged.size < ACKNOWLEDGED_BEFORE_CUT) {
    if (writersEnded) throw new Error(`the writers stopped after ${acknowledged.size} acknowledged writes: ${((await runs).find((r) => r.status === 'rejected') as PromiseRejectedResult).reason}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const cutAfter = Math.max(...acknowledged.values());
  while ((readMark(dataDir)?.opId ?? 0) < cutAfter) await new Promise((r) => setTimeout(r, 20));
  const file = join(dataDir, 'data.mdb');
  truncateSync(file, Math.floor(statSync(file).size / 2 / 4096) * 4096);
  await new Promise((r) => setTimeout(r, 100));
  killed = true;
  await kill(server);
  await runs;
  client.close();

  const mark = readMark(dataDir)!;
  const message = await refusal(dataDir);
  if (message === null) return startedWhole(dataDir, acknowledged, say);
  const range = /operations (\d+) to (\d+) (?:were durable in it and are in no snapshot|are lost)/.exec(message);
  // The cut may come after a snapshot that already holds every durable operation: then none is lost, and start-up says so.
  const covered = /the newest snapshot \((\d+)\) holds every operation known durable/.exec(message);
  if ((!range && !covered) || !message.includes('SERVICE_ACCEPT_LOSS=1')) return [`a data.mdb truncated under the server did not stop start-up naming the lost operations: ${message.slice(0, 400)}`];
  const [from, to] = range ? [Number(range[1]), Number(range[2])] : [Number(covered![1]) + 1, Number(covered![1])];
  const problems: string[] = [];
  if (range && to < mark.opId) problems.push(`start-up named operations ${from} to ${to} lost, but the high-water mark shows ${mark.opId} was durable`);
  if (covered && Number(covered[1]) < mark.opId) problems.push(`start-up said snapshot ${covered[1]} holds every durable operation, but the high-water mark shows ${mark.opId}`);

  const below = [...acknowledged].filter(([, op]) => op <= mark.opId);
  const present = await presentIn(dataDir, { ...ENV, SERVICE_ACCEPT_LOSS: '1' }, below.map(([id]) => id));
  const silentlyLost = below.filter(([id, op]) => !present.has(id) && (op < from || op > to));
  if (silentlyLost.length > 0) problems.push(`${silentlyLost.length} writes acknowledged before the high-water mark are gone without being named, e.g. point ${silentlyLost[0]![0]} (operation ${silentlyLost[0]![1]}); named ${from} to ${to}`);
  if (below.length < ACKNOWLEDGED_BEFORE_CUT) problems.push(`only ${below.length} acknowledged writes were below the high-water mark`);
  const named = below.filter(([id]) => !present.has(id)).length;
  const what = range ? `naming operations ${from} to ${to}` : `saying snapshot ${to} holds every durable operation`;
  say(`data.mdb cut short under the server: start-up refused ${what}; accepting the loss kept ${below.length - named} of the ${below.length} writes acknowledged below the high-water mark (${mark.opId}) and ${named} were among those named`);
  return problems;
}
