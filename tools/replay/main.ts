import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { inspect, rebuild, repair, repairSkip, stats, verify, type Tool } from './commands.js';

const USAGE = `usage: npm run replay -- <command> --data-dir DIR [options]
  inspect   [--from OP] [--to OP] [--collection NAME]   one line per log entry
  verify                                                 every entry decodes; the newest snapshot equals a replay
  rebuild   --until OP --out DIR                         the state as of OP, as export files (.vgdb)
  stats                                                  counts by type and collection, sizes, snapshots
  repair    [--yes]                                      drop the first damaged entry and all after it
  repair    --skip OP [--yes]                            set aside one entry whose apply fails; replay passes over it
The server must be stopped: the data directory is locked while it runs.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'data-dir': { type: 'string', default: process.env.SERVICE_DATA_DIR ?? './data' },
    from: { type: 'string' },
    to: { type: 'string' },
    until: { type: 'string' },
    collection: { type: 'string' },
    out: { type: 'string' },
    yes: { type: 'boolean', default: false },
    skip: { type: 'string' },
  },
});

function opArg(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be an operation_id (a non-negative integer), got "${raw}"`);
  return n;
}

async function main(): Promise<number> {
  const command = positionals[0];
  if (!command || !['inspect', 'verify', 'rebuild', 'stats', 'repair'].includes(command)) {
    console.error(USAGE);
    return 2;
  }
  const dir = resolve(values['data-dir']!);
  const log = LmdbLog.open(dir);
  const tool: Tool = { log, snapshots: new SnapshotFiles(join(dir, 'snapshots')), print: (line) => console.log(line) };
  try {
    switch (command) {
      case 'inspect':
        return inspect(tool, { from: opArg(values.from, 'from', 1), to: opArg(values.to, 'to', Number.MAX_SAFE_INTEGER), collection: values.collection ?? null });
      case 'verify':
        return verify(tool);
      case 'rebuild':
        if (values.until === undefined || values.out === undefined) throw new Error('rebuild needs --until OP and --out DIR');
        return rebuild(tool, opArg(values.until, 'until', 0), resolve(values.out));
      case 'stats':
        return stats(tool);
      default:
        if (values.skip !== undefined) return await repairSkip(tool, opArg(values.skip, 'skip', 0), values.yes!);
        return await repair(tool, values.yes!);
    }
  } finally {
    await log.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`replay: ${err.message}`);
    process.exit(2);
  },
);
