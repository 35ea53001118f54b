import type { Engine } from '../../storage/engine/engine.js';
import { badRequest, CorruptDataError } from '../../storage/errors.js';
import type { ApplyResult } from '../../storage/engine/apply-event.js';
import type { ParsedExport } from '../../storage/export/import-reader.js';
import type { DbEvent, ImportMode } from '../../storage/events/types.js';

export const IMPORT_MODES: readonly ImportMode[] = ['create', 'replace', 'merge'];

export function parseImportMode(mode: unknown): ImportMode {
  const allowed = IMPORT_MODES.join(', ');
  if (mode === undefined) throw badRequest(`mode is required: one of ${allowed}, as ?mode=create`);
  if (typeof mode !== 'string' || !IMPORT_MODES.includes(mode as ImportMode)) throw badRequest(`mode must be one of ${allowed}, got ${JSON.stringify(mode)}`);
  return mode as ImportMode;
}

/** Runs `read`; a damaged file becomes a 400 that says so. */
export function readingImport<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof CorruptDataError) throw badRequest(`corrupted import file: ${err.message}`);
    throw err;
  }
}

export const importEvent = (name: string, mode: ImportMode, file: ParsedExport): DbEvent => ({
  type: 'import_collection',
  name,
  mode,
  config: file.config,
  points: file.points,
  edges: file.edges,
  indexes: file.indexes,
  settings: file.settings,
  exportedAt: file.exportedAt,
});

/** An import's answer: SPEC.md's fields, and its operation_id (as writes answer theirs), which reads on a replica can wait for. */
export function importResultJson(engine: Engine, name: string, mode: ImportMode, opId: number, result: ApplyResult): Record<string, unknown> {
  if (result.error) throw result.error;
  return { points_imported: result.imported, points_skipped: result.skipped, dimension: engine.collections.get(name)!.config.size, mode, operation_id: opId };
}
