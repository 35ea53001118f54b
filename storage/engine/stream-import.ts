import { badRequest, CorruptDataError } from '../errors.js';
import type { ImportCollectionEvent, ImportMode } from '../events/types.js';
import { entryVersionOf } from '../export/format.js';
import { ImportReader, type ExportHeader } from '../export/import-reader.js';
import type { Engine } from './engine.js';
import { ImportCheck } from './import-check.js';
import { checkMergeTarget, validateEvent } from './validate-event.js';

/** Runs `read`; a damaged file becomes a 400 that says so. */
function readingFile<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof CorruptDataError) throw badRequest(`corrupted import file: ${err.message}`);
    throw err;
  }
}

/**
 * A streamed import, the centre of the design (README: Export and import):
 *
 * 1. The body is read a chunk at a time. Each block is checked as it completes (CRC, structure,
 *    the write limits, every point as an upsert checks it, every edge's endpoints; ImportCheck)
 *    and its bytes, as framed in the file, are staged in a file of their own beside the log
 *    (`imports/<stage>.stage`, LmdbLog.stageImport), a few MiB in flight at most. Memory holds
 *    one block, the in-flight writes and a typed-array set of the file's ids, whatever the
 *    file's size; `data.mdb` does not grow by the file.
 * 2. Only once the trailer checks out is the import submitted: one small log entry (an
 *    import_collection event whose points and edges are StagedContent: the stage, the block
 *    count and a SHA-256 over the blocks, which the entry's chain hash covers), once the stage
 *    file is fsynced. Its commit makes the stage the entry's in the same LMDB transaction.
 * 3. It applies through the same apply code at runtime and at replay (apply-event.ts), which
 *    reads the staged blocks back a block at a time (import-chunks.ts), checking each.
 *
 * Any failure before the entry is written (a damaged block, a bad CRC, a truncated body, a limit,
 * a lost connection) deletes the stage file: nothing was applied and nothing is logged. A crash
 * leaves at most an orphan stage file, deleted when the log next opens. A stage file goes when
 * its entry is dropped after a snapshot (LmdbLog.truncateThrough); start-up refuses an entry
 * whose stage file is missing or cut, naming it (LmdbLog.stageProblems).
 *
 * A log that cannot stage (the in-memory log) reads the file whole, as before. Under replication
 * the primary publishes the stage file ahead of the entry, and each replica stages it in turn
 * (replication/stage-receiver.ts).
 */
async function readImport(engine: Engine, name: string, mode: ImportMode, body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<{ event: ImportCollectionEvent; discard: () => Promise<void> }> {
  const log = engine.log;
  const stage = log.stageImport?.();
  if (!stage) {
    const reader = new ImportReader(engine.limits);
    for await (const chunk of body) readingFile(() => reader.feed(chunk));
    const file = readingFile(() => reader.finish());
    const event: ImportCollectionEvent = { type: 'import_collection', name, mode, config: file.config, points: file.points, edges: file.edges, indexes: file.indexes, settings: file.settings, exportedAt: file.exportedAt };
    return { event, discard: () => Promise.resolve() };
  }
  try {
    let check: ImportCheck | null = null;
    let header: ExportHeader | null = null;
    const eventOf = (h: ExportHeader): ImportCollectionEvent => ({ type: 'import_collection', name, mode, config: h.config, points: [], edges: [], settings: h.settings, exportedAt: h.exportedAt });
    const reader = new ImportReader(null, {
      header: (h) => {
        header = h;
        const event = eventOf(h);
        // What the entry will be checked against when it is submitted, now, before the body is read.
        validateEvent(engine.collections, { ...event, staged: { stage: stage.id, blocks: 0, points: h.points, edges: h.edges, version: 0, digest: new Uint8Array(32) } }, engine.limits);
        check = new ImportCheck(name, mode, h.config, mode === 'merge' ? checkMergeTarget(engine.collections.get(name), event) : null, engine.limits);
      },
      points: (points, framed) => {
        check!.points(points);
        stage.add(framed);
      },
      edges: (edges, framed) => {
        check!.edges(edges);
        stage.add(framed);
      },
    });
    for await (const chunk of body) {
      readingFile(() => reader.feed(chunk));
      await stage.room();
    }
    const file = readingFile(() => reader.finish());
    // finish() has checked that the file starts with its header.
    const h = header as unknown as ExportHeader;
    const { blocks, digest } = await stage.finish();
    const staged = { stage: stage.id, blocks, points: h.points, edges: h.edges, version: entryVersionOf(reader.formatVersion), digest };
    const event: ImportCollectionEvent = { ...eventOf(h), indexes: file.indexes, staged: { ...staged, read: () => log.stagedBlocks!(staged.stage, blocks, digest) } };
    return { event, discard: () => stage.discard() };
  } catch (err) {
    await stage.discard();
    throw err;
  }
}

/**
 * Reads, checks and stages an import, then logs and applies it as one operation: the answer is
 * the engine's. When the entry is refused before it is logged (a 409, a 400), the stage goes.
 */
export async function importStream(engine: Engine, name: string, mode: ImportMode, body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): ReturnType<Engine['submit']> {
  // A replica (421), a fenced primary or a read-only engine refuses before the body is read and staged.
  const refused = engine.writeRefusal();
  if (refused) throw refused;
  const { event, discard } = await readImport(engine, name, mode, body);
  try {
    return await engine.submit(event);
  } catch (err) {
    await discard();
    throw err;
  }
}
