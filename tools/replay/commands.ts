import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../storage/engine/engine.js';
import { DamagedEntryError } from '../../storage/errors.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import { FILE_EXTENSION } from '../../storage/export/format.js';
import type { LmdbLog } from '../../storage/log/lmdb-log.js';
import { auditLog } from '../../storage/log/log-audit.js';
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

const collectionOf = (e: DbEvent): string => ('collection' in e ? e.collection : e.name);

const entryCount = (tool: Tool): number => tool.log.lastOperationId - tool.log.firstOperationId + 1;

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

/** inspect: one line per entry (operation_id, type, collection, bytes), damaged ones marked. */
export function inspect(tool: Tool, range: Range): number {
  let damaged = 0;
  for (const { opId, record } of tool.log.readRaw(range.from, range.to)) {
    try {
      const event = decodeEntry(opId, record);
      if (range.collection !== null && collectionOf(event) !== range.collection) continue;
      const extra =
        event.type === 'upsert_points' ? ` points=${event.points.length}` : event.type === 'delete_points' ? ` ids=${event.ids.length}` : event.type === 'graph_write' ? ` changes=${event.changes.length}` : '';
      tool.print(`${opId}\t${event.type}\t${collectionOf(event)}\t${record.length} B${extra}`);
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
  const progress = startProgress(label, Math.max(0, Math.min(until, tool.log.lastOperationId) - Math.max(base, tool.log.firstOperationId - 1)), 'entries');
  const engine = new Engine(countingReads(tool.log, () => progress.tick()), snapshotAtMost > 0 ? { snapshots: tool.snapshots } : {});
  try {
    engine.replay(until, snapshotAtMost);
  } finally {
    progress.end();
  }
  return engine;
}

/**
 * verify: every entry decodes and ids follow each other without a hole; the log reaches the
 * high-water mark and the newest snapshot (the check start-up makes); the newest snapshot equals the state
 * rebuilt without it (from an older snapshot, or the log from operation 1) at its operation_id.
 */
export function verify(tool: Tool): number {
  let failures = 0;
  let previous = 0;
  let entries = 0;
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
    } catch (err) {
      failures++;
      progress.aside(() => tool.print(`FAIL ${(err as Error).message}`));
    }
  }
  progress.end();
  tool.print(`${entries} entries checked (${tool.log.firstOperationId}..${tool.log.lastOperationId})`);
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

/** rebuild --until OP: the state as of an operation_id, written as one export file per collection. */
export function rebuild(tool: Tool, until: number, outDir: string): number {
  const engine = replayTo(tool, until, until, 'replay rebuild');
  mkdirSync(outDir, { recursive: true });
  for (const c of engine.collections.values()) {
    const file = join(outDir, `${c.name}.${FILE_EXTENSION}`);
    writeFileSync(file, Buffer.concat([...exportCollection(c).chunks()]));
    tool.print(`${file}: ${c.store.liveCount} points, ${c.graph.edgeCount} edges`);
  }
  tool.print(`state as of operation ${Math.min(until, tool.log.lastOperationId)}: ${engine.collections.size} collection(s)`);
  return 0;
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
  const { problems } = auditLog(tool.log, tool.snapshots, tool.snapshots.loadNewest()?.opId ?? 0);
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
