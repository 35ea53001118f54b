import { join, resolve } from 'node:path';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { switchFlag, text, UsageError, wholeNumber } from '../lib/args.js';
import { runTool } from '../lib/run-tool.js';
import { inspect, rebuild, repair, repairSkip, stats, verify, type Tool } from './commands.js';
import { checkDataDir } from './data-dir.js';
import { serve } from './serve.js';

const USAGE = `usage: npm run replay -- <command> [--data-dir DIR] [options]
  inspect   [--from OP] [--to OP] [--collection NAME]   one line per log entry
  verify                                                 every entry decodes; the newest snapshot equals a replay
  rebuild   --until OP --out DIR                         the state as of OP, as export files (.vgdb)
  serve     --until OP [--port P] [--host H]             the state as of OP, served read-only over the HTTP API (port 6333)
  stats                                                  counts by type and collection, sizes, snapshots
  repair    [--yes] [--accept-loss]                      drop the first damaged entry and all after it;
            with --accept-loss, also accept operations the log lost (as SERVICE_ACCEPT_LOSS=1 does)
  repair    --skip OP [--yes]                            set aside one entry whose apply fails; replay passes over it
  --data-dir DIR   the server's data directory (default: $SERVICE_DATA_DIR, else ./data); it must exist and hold a database
  -h, --help       this text
Results go to stdout, progress to stderr. Exit codes: 0 fine, 1 problems found (verify, inspect, repair without --yes),
2 could not run (bad arguments, no database at --data-dir, the data directory in use).
The server must be stopped: the data directory is locked while it runs.`;

const OPERATION_ID = { expects: 'an operation_id (a whole number ≥ 0)' };

const SPEC = {
  name: 'replay',
  usage: USAGE,
  flags: {
    'data-dir': text('a directory', process.env.SERVICE_DATA_DIR ?? './data'),
    from: wholeNumber(OPERATION_ID, 1),
    to: wholeNumber(OPERATION_ID, Number.MAX_SAFE_INTEGER),
    until: wholeNumber(OPERATION_ID),
    collection: text('a collection name'),
    out: text('a directory'),
    yes: switchFlag,
    'accept-loss': switchFlag,
    skip: wholeNumber(OPERATION_ID),
    port: wholeNumber({ max: 65535, expects: 'a port number from 0 to 65535 (0 picks a free one)' }, 6333),
    host: text('a host name or address', '127.0.0.1'),
  },
  commands: {
    inspect: ['data-dir', 'from', 'to', 'collection'],
    verify: ['data-dir'],
    rebuild: ['data-dir', 'until', 'out'],
    serve: ['data-dir', 'until', 'port', 'host'],
    stats: ['data-dir'],
    repair: ['data-dir', 'yes', 'accept-loss', 'skip'],
  },
} as const;

runTool(
  SPEC,
  async ({ command, values }) => {
    if (command === 'rebuild' && (values.until === undefined || values.out === undefined)) throw new UsageError('rebuild needs --until OP and --out DIR');
    if (command === 'serve' && values.until === undefined) throw new UsageError('serve needs --until OP');
    const dir = resolve(values['data-dir']);
    checkDataDir(dir);
    const acceptingLoss = command === 'repair' && values['accept-loss'] && values.yes;
    const log = LmdbLog.open(dir, acceptingLoss ? { onDamagedFile: (reason, movedTo) => console.log(`accepted loss: the log file is damaged (${reason}); moved to ${movedTo}`) } : {});
    const tool: Tool = { log, snapshots: new SnapshotFiles(join(dir, 'snapshots')), print: (line) => console.log(line) };
    try {
      switch (command) {
        case 'inspect':
          return inspect(tool, { from: values.from, to: values.to, collection: values.collection ?? null });
        case 'verify':
          return verify(tool);
        case 'rebuild':
          return rebuild(tool, values.until!, resolve(values.out!));
        case 'stats':
          return stats(tool);
        case 'serve':
          return await serve(tool, values.until!, values.port, values.host);
        default:
          if (values.skip !== undefined) {
            if (values['accept-loss']) throw new UsageError('--skip and --accept-loss are separate repairs: run one, then the other');
            return await repairSkip(tool, values.skip, values.yes);
          }
          return await repair(tool, values.yes, values['accept-loss']);
      }
    } finally {
      await log.close();
    }
  },
  { failureExitCode: 2 },
);
