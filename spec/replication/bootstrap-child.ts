// Run by bootstrap.spec in a process of its own: bootstraps into a data dir from a stand-in
// primary and prints its memory, the growth through the bootstrap being what the spec checks.
import { readFileSync, writeFileSync } from 'node:fs';
import { bootstrapFromPrimary } from '../../replication/bootstrap.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';

const [primaryUrl, dir] = process.argv.slice(2) as [string, string];
const statusBytes = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

// fetch's own modules load on its first call: not the bootstrap's memory.
await (await fetch(new URL('/warm', primaryUrl))).arrayBuffer();
// The peak is counted from here: 5 resets the process's VmHWM to its VmRSS.
writeFileSync('/proc/self/clear_refs', '5');
const before = statusBytes('VmRSS');
const opId = await bootstrapFromPrimary({ primaryUrl, apiKey: null }, new MemoryLog(), new SnapshotFiles(dir), () => undefined);
process.stdout.write(JSON.stringify({ opId, before, peak: statusBytes('VmHWM') }));
