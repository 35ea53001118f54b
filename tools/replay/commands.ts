import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyEvent } from '../../storage/engine/apply-event.js';
import { importPointCount } from '../../storage/engine/import-chunks.js';
import { ApplyFailedError } from '../../storage/engine/apply-failure.js';
import { Engine } from '../../storage/engine/engine.js';
import { DamagedEntryError } from '../../storage/errors.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import { FILE_EXTENSION } from '../../storage/export/format.js';
import type { LmdbLog } from '../../storage/log/lmdb-log.js';
import { auditLog } from '../../storage/log/log-audit.js';
import { ChainWalker, hex, type ChainCheck } from '../../storage/log/chain.js';
import { idsInUse } from '../../storage/log/passed-over.js';
import { decodeEntry } from '../../storage/log/record.js';
import type { DbEvent } from '../../storage/events/types.js';
import type { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { startProgress } from '../lib/progress.js';
import { countingReads } from './counting-log.js';
import { digestOf } from './state-digest.js';

export interface Tool {
  log: LmdbLog;
  snapshots: SnapshotFiles;
  print: (line: string) => void;
}

export interface Range {
  from: number;
  to: number;
  collection: string | null;
}

const collectionOf = (e: DbEvent): string => ('collection' in e ? e.collection : 'name' in e ? e.name : '(aliases)');

const entryCount = (tool: Tool): number => idsInUse(tool.log, tool.log.firstOperationId, tool.log.lastOperationId);

/** The first damaged entry, or null when every entry decodes. */
function firstDamaged(tool: Tool): DamagedEntryError | null {
  const progress = startProgress('replay repair: scanning', entryCount(tool), 'entries');
  try {
    for (const { opId, record } of tool.log.readRaw()) {
      progress.tick();
      try {
        decodeEntry(opId, record);
      } catch (err) {
        if (err instanceof DamagedEntryError) return err;
        throw err;
      }
    }
    return null;
  } finally {
    progress.end();
  }
}

const skipLine = (opId: number, tool: Tool): string => {
  const note = tool.log.skippedOperations().get(opId);
  return note ? `SKIPPED by repair --skip at ${note.at}: ${note.reason}` : '';
};

/** inspect: one line per entry (operation_id, type, collection, bytes), damaged and skipped ones marked. */
export function inspect(tool: Tool, range: Range): number {
  let damaged = 0;
  const skipped = tool.log.skippedOperations();
  for (const { opId, record } of tool.log.readRaw(range.from, range.to)) {
    try {
      const event = decodeEntry(opId, record);
      if (range.collection !== null && collectionOf(event) !== range.collection) continue;
      const extra =
        event.type === 'upsert_points' ? ` points=${event.points.length}` : event.type === 'delete_points' ? ` ids=${event.ids.length}` : event.type === 'graph_write' ? ` changes=${event.changes.length}` : event.type === 'import_collection' ? ` points=${importPointCount(event)}${event.staged ? ` staged=${event.staged.blocks} blocks` : ''}` : '';
      const skip = skipped.has(opId) ? `\t${skipLine(opId, tool)}` : '';
      tool.print(`${opId}\t${event.type}\t${collectionOf(event)}\t${record.length} B${extra}${skip}`);
    } catch (err) {
      damaged++;
      tool.print(`${opId}\tDAMAGED\t-\t${record.length} B\t${(err as Error).message}`);
    }
  }
  return damaged ? 1 : 0;
}

/** stats: the log's range, sizes, entries per type and per collection, and the snapshots. */
export function stats(tool: Tool): number {
  const byType = new Map<string, number>();
  const byCollection = new Map<string, number>();
  let entries = 0;
  let bytes = 0;
  let damaged = 0;
  const progress = startProgress('replay stats', entryCount(tool), 'entries');
  for (const { opId, record } of tool.log.readRaw()) {
    progress.tick();
    entries++;
    bytes += record.length;
    try {
      const event = decodeEntry(opId, record);
      byType.set(event.type, (byType.get(event.type) ?? 0) + 1);
      byCollection.set(collectionOf(event), (byCollection.get(collectionOf(event)) ?? 0) + 1);
    } catch {
      damaged++;
    }
  }
  progress.end();
  tool.print(`operations ${tool.log.firstOperationId}..${tool.log.lastOperationId}: ${entries} entries, ${bytes} bytes, ${damaged} damaged`);
  for (const [type, n] of [...byType].sort()) tool.print(`  ${type}: ${n}`);
  for (const [name, n] of [...byCollection].sort()) tool.print(`  collection ${name}: ${n}`);
  tool.print(`snapshots: ${tool.snapshots.list().join(', ') || 'none'}`);
  return 0;
}

/** The state as of `until`, from the newest snapshot at or before `snapshotAtMost` (0: none) and the log. */
function replayTo(tool: Tool, until: number, snapshotAtMost: number, label: string): Engine {
  const base = snapshotAtMost > 0 ? (tool.snapshots.list().find((opId) => opId <= snapshotAtMost) ?? 0) : 0;
  const progress = startProgress(label, idsInUse(tool.log, Math.max(base + 1, tool.log.firstOperationId), Math.min(until, tool.log.lastOperationId)), 'entries');
  const engine = new Engine(countingReads(tool.log, () => progress.tick()), snapshotAtMost > 0 ? { snapshots: tool.snapshots } : {});
  try {
    engine.replay(until, snapshotAtMost);
  } finally {
    progress.end();
  }
  return engine;
}

/**
 * verify: every entry decodes, ids follow each other without a hole and each entry follows from
 * the one before in the hash chain (all in one read of the log); the log reaches the
 * high-water mark and the newest snapshot (the check start-up makes); the newest snapshot equals the state
 * rebuilt without it (from an older snapshot, or the log from operation 1) at its operation_id.
 */
export function verify(tool: Tool): number {
  let failures = 0;
  let previous = 0;
  let entries = 0;
  const chain = new ChainWalker();
  const progress = startProgress('replay verify: checking entries', entryCount(tool), 'entries');
  for (const { opId, record } of tool.log.readRaw()) {
    progress.tick();
    entries++;
    if (opId <= previous) {
      failures++;
      progress.aside(() => tool.print(`FAIL entry ${opId} does not come after ${previous}`));
    }
    previous = opId;
    try {
      decodeEntry(opId, record);
      chain.add(opId, record);
    } catch (err) {
      failures++;
      progress.aside(() => tool.print(`FAIL ${(err as Error).message}`));
    }
  }
  progress.end();
  tool.print(`${entries} entries checked (${tool.log.firstOperationId}..${tool.log.lastOperationId})`);
  for (const opId of tool.log.skippedOperations().keys()) {
    if (opId >= tool.log.firstOperationId) tool.print(`entry ${opId} is ${skipLine(opId, tool)}`);
  }
  if (failures === 0) failures += reportHashChain(tool, chain.result());
  if (failures === 0) failures += checkEveryEntryApplies(tool);
  const [newest, older] = tool.snapshots.list();
  for (const problem of auditLog(tool.log, tool.snapshots, newest ?? 0, 1).problems) {
    failures++;
    tool.print(`FAIL ${problem.message}`);
  }
  if (newest === undefined) tool.print('no snapshot to cross-check');
  else {
    const base = older ?? 0;
    if (tool.log.firstOperationId > base + 1) {
      tool.print(`snapshot ${newest}: not cross-checked (the log starts at ${tool.log.firstOperationId} and there is no older snapshot)`);
    } else if (failures === 0) {
      const snap = tool.snapshots.loadNewest(newest);
      if (!snap || snap.opId !== newest) {
        failures++;
        tool.print(`FAIL snapshot ${newest} does not read back`);
      } else {
        const rebuilt = replayTo(tool, newest, base, `replay verify: replaying to snapshot ${newest}`);
        const names = new Set([...snap.collections.keys(), ...rebuilt.collections.keys()]);
        for (const name of [...names].sort()) {
          const a = snap.collections.get(name);
          const b = rebuilt.collections.get(name);
          if (!a || !b || digestOf(a) !== digestOf(b)) {
            failures++;
            tool.print(`FAIL snapshot ${newest}: collection ${name} differs from the replay`);
          }
        }
        if (failures === 0) tool.print(`snapshot ${newest} matches a replay from ${base ? `snapshot ${base}` : 'operation 1'} (${names.size} collections)`);
      }
    }
  }
  tool.print(failures === 0 ? 'OK' : `${failures} problem(s)`);
  return failures === 0 ? 0 : 1;
}

/** The entries' hash chain, checked as they were read: each follows from the one before; prints the head hash. */
function reportHashChain(tool: Tool, chain: ChainCheck): number {
  if (chain.broken) {
    tool.print(`FAIL entry ${chain.broken.opId} breaks the hash chain: ${chain.broken.reason}`);
    return 1;
  }
  if (chain.anchor === null) tool.print('hash chain: no entry carries one (written before the log was chained)');
  else tool.print(`hash chain: ${chain.linked} link(s) checked from entry ${chain.anchor}, head ${hex(chain.head!)}`);
  return 0;
}

/**
 * Replays the whole log (from the newest snapshot when the log no longer starts at 1) and
 * reports an entry whose apply throws, which would stop the server from starting.
 */
function checkEveryEntryApplies(tool: Tool): number {
  const fromSnapshot = tool.log.firstOperationId > 1 ? Number.MAX_SAFE_INTEGER : 0;
  try {
    replayTo(tool, Number.MAX_SAFE_INTEGER, fromSnapshot, 'replay verify: applying every entry');
    return 0;
  } catch (err) {
    const fix = err instanceof ApplyFailedError ? `: run repair --skip ${err.opId} --yes` : '';
    tool.print(`FAIL ${(err as Error).message}; the server will not start${fix}`);
    return 1;
  }
}

/** rebuild --until OP: the state as of an operation_id, written as one export file per collection. */
export function rebuild(tool: Tool, until: number, outDir: string): number {
  const engine = replayTo(tool, until, until, 'replay rebuild');
  mkdirSync(outDir, { recursive: true });
  for (const c of engine.collections.values()) {
    const file = join(outDir, `${c.name}.${FILE_EXTENSION}`);
    writeFileSync(file, Buffer.concat([...exportCollection(c, tool.log.lastOperationId, tool.log.headHash).chunks()]));
    tool.print(`${file}: ${c.store.liveCount} points, ${c.graph.edgeCount} edges`);
  }
  tool.print(`state as of operation ${Math.min(until, tool.log.lastOperationId)}: ${engine.collections.size} collection(s)`);
  return 0;
}

/**
 * repair --skip OP: sets aside one entry whose apply throws, so that replay passes over it
 * (only with --yes). The entry stays in the log; a skip marker beside it (LmdbLog.markSkipped)
 * records its kind, the error and the time, and start-up, verify and inspect report it. An
 * entry that applies is refused: skipping it would change the state for nothing.
 */
export async function repairSkip(tool: Tool, opId: number, yes: boolean): Promise<number> {
  const [entry] = tool.log.read(opId, opId);
  if (!entry) {
    tool.print(`there is no log entry ${opId} (the log holds ${tool.log.firstOperationId}..${tool.log.lastOperationId})`);
    return 1;
  }
  if (tool.log.skippedOperations().has(opId)) {
    tool.print(`entry ${opId} is already ${skipLine(opId, tool)}`);
    return 0;
  }
  let engine: Engine;
  try {
    engine = replayTo(tool, opId - 1, opId - 1, `replay repair: replaying up to entry ${opId}`);
  } catch (err) {
    if (!(err instanceof ApplyFailedError)) throw err;
    tool.print(`entry ${opId} cannot be tried: an earlier one fails first (${err.message}); run repair --skip ${err.opId} first`);
    return 1;
  }
  try {
    applyEvent(engine.collections, opId, entry.event);
    tool.print(`entry ${opId} (${entry.event.type} on "${collectionOf(entry.event)}") applies: nothing to skip`);
    return 1;
  } catch (err) {
    const failure = new ApplyFailedError(opId, entry.event, err as Error);
    tool.print(failure.message);
    if (!yes) {
      tool.print(`would set entry ${opId} aside so that replay passes over it; run again with --yes to do it`);
      return 1;
    }
    await tool.log.markSkipped(opId, { kind: failure.kind, collection: failure.collection, reason: failure.cause.message, at: new Date().toISOString() });
    tool.print(`entry ${opId} is set aside: the server starts without it, and verify and inspect report it`);
    return 0;
  }
}

/**
 * repair: drops the first damaged entry and everything after it; with acceptLoss, then accepts
 * what start-up would find missing, as SERVICE_ACCEPT_LOSS=1 does (only with --yes).
 */
export async function repair(tool: Tool, yes: boolean, acceptLoss = false): Promise<number> {
  const damaged = firstDamaged(tool);
  if (!damaged) {
    tool.print('every entry decodes: nothing to repair');
    return acceptLoss ? acceptLosses(tool, yes) : 0;
  }
  const count = tool.log.lastOperationId - damaged.opId + 1;
  tool.print(damaged.message);
  if (!yes) {
    tool.print(`would drop operations ${damaged.opId}..${tool.log.lastOperationId} (at most ${count} entries); run again with --yes to do it`);
    return 1;
  }
  const dropped = await tool.log.truncateFrom(damaged.opId);
  tool.print(`dropped ${dropped} entries from operation ${damaged.opId}; the state now ends at operation ${damaged.opId - 1}`);
  return acceptLoss ? acceptLosses(tool, yes) : 0;
}

async function acceptLosses(tool: Tool, yes: boolean): Promise<number> {
  const { problems } = auditLog(tool.log, tool.snapshots, tool.snapshots.newestWhole() ?? 0);
  if (problems.length === 0) {
    tool.print('the log holds every operation known durable: no loss to accept');
    return 0;
  }
  if (!yes) {
    for (const p of problems) tool.print(`would accept: ${p.message}`);
    tool.print('run again with --yes to accept the loss');
    return 1;
  }
  const engine = new Engine(tool.log, { snapshots: tool.snapshots, logRetention: Number.MAX_SAFE_INTEGER, acceptLoss: true, onLoss: (p) => tool.print(`accepted loss: ${p.message}`) });
  await engine.start();
  tool.print(`the state now ends at operation ${engine.lastAppliedOperationId} (snapshot ${engine.lastSnapshotOperationId}); new operations get ids above it`);
  return 0;
}
