import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCrashTest } from './run.js';

/** `npm run crash-test -- --cycles N`: see run.ts. Exits 1 when a write was lost or anything else is wrong. */
const { values } = parseArgs({ options: { cycles: { type: 'string', default: '30' } } });
const cycles = Number(values.cycles);
const dir = mkdtempSync(join(tmpdir(), 'vgdb-crash-'));
try {
  const report = await runCrashTest(dir, cycles, (line) => console.log(line));
  console.log(`\ncycles ${report.cycles}, writes acknowledged ${report.acknowledged}, writes lost ${report.lost}, problems ${report.problems.length}`);
  for (const p of report.problems) console.log(`PROBLEM ${p}`);
  process.exitCode = report.lost === 0 && report.problems.length === 0 ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
