import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { switchFlag, wholeNumber } from '../lib/args.js';
import { startProgress } from '../lib/progress.js';
import { runTool } from '../lib/run-tool.js';
import { runCrashTest, type CrashReport } from './run.js';
import { runReplicationCrashTest, type ReplicationCrashReport } from './replication.js';

const USAGE = `usage: npm run crash-test -- [--cycles N] [--replication]
Kills the real server (SIGKILL) at random moments under concurrent acknowledged writes, N times,
and checks after each restart that nothing acknowledged is lost and nothing is half applied; one
writer sends poison inputs (payloads nested too deep or too large, by upsert and import, Cypher
past its memory budget or nested too deep, upserts and imports past the points limit, a
collection past the collections limit) that must each get their 4xx and change nothing. Then
it checks that search after recovery equals a rebuild from the log, that a damaged log tail and a
data file cut short stop start-up with a message, and that a data file cut short under a running
server stops start-up naming the lost operations, and SERVICE_ACCEPT_LOSS=1 keeps the rest.
  --cycles N      kill-and-restart cycles, 1 to 100000 (default 30; 10 with --replication)
  --replication  instead: a primary and two replicas over a 3-node JetStream cluster (Debian's
                 nats-server) under sync writes; each cycle SIGKILLs the primary (a replica is
                 promoted, the old primary must come back fenced), a replica or a NATS node at
                 random, then checks every server holds every acknowledged write
  -h, --help     this text
One line per cycle and the summary go to stdout, progress to stderr.
Exit codes: 0 nothing lost, 1 a write was lost or something else is wrong, 2 bad arguments.`;

const SPEC = { name: 'crash-test', usage: USAGE, flags: { cycles: wholeNumber({ min: 1, max: 100_000 }), replication: switchFlag } };

async function replicationMode(cycles: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'vgdb-crash-repl-'));
  const progress = startProgress('crash-test --replication', cycles, 'cycles');
  let report: ReplicationCrashReport;
  try {
    report = await runReplicationCrashTest(dir, cycles, (line) => progress.aside(() => console.log(line)), (cycle) => progress.update(cycle));
  } finally {
    progress.end();
    rmSync(dir, { recursive: true, force: true });
  }
  const { primary, replica, nats } = report.kills;
  console.log(`\ncycles ${report.cycles} (killed: primary ${primary}, replica ${replica}, NATS node ${nats}), writes acknowledged ${report.acknowledged}, ${report.lost} acknowledged writes lost, problems ${report.problems.length}`);
  for (const p of report.problems) console.log(`PROBLEM ${p}`);
  return report.lost === 0 && report.problems.length === 0 ? 0 : 1;
}

runTool(SPEC, async ({ values: given }) => {
  if (given.replication) return replicationMode(given.cycles ?? 10);
  const values = { cycles: given.cycles ?? 30 };
  const dir = mkdtempSync(join(tmpdir(), 'vgdb-crash-'));
  const progress = startProgress('crash-test', values.cycles, 'cycles');
  let report: CrashReport;
  try {
    report = await runCrashTest(dir, values.cycles, (line) => progress.aside(() => console.log(line)), (cycle) => progress.update(cycle));
  } finally {
    progress.end();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\ncycles ${report.cycles}, writes acknowledged ${report.acknowledged}, writes lost ${report.lost}, poison inputs refused ${report.poisonsRefused}, problems ${report.problems.length}`);
  for (const p of report.problems) console.log(`PROBLEM ${p}`);
  return report.lost === 0 && report.problems.length === 0 ? 0 : 1;
});
