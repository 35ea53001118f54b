import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Reads a /proc file of a process that may have gone since it was listed. */
function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The parent of every live process, from /proc/<pid>/stat (Linux). */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProc(`/proc/${name}/stat`);
    // "pid (command) state ppid …": the command may hold spaces and parentheses, so read after the last ')'.
    if (stat) parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  return parentOf;
}

/** `root` and every process below it. */
export function processTree(root: number): number[] {
  const parentOf = parents();
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, parent] of parentOf) if (parent === tree[i] && !tree.includes(pid)) tree.push(pid);
  }
  return tree;
}

export function commandLine(pid: number): string {
  return (readProc(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim();
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const TCP_LISTEN = '0A';

/** The TCP ports a process listens on, from its socket descriptors and /proc/<pid>/net/tcp{,6}. */
export function listeningPorts(pid: number): number[] {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const sockets = new Set<string>();
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) sockets.add(m[1]!);
    } catch {
      // closed while listed
    }
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    for (const line of (readProc(`/proc/${pid}/net/${table}`) ?? '').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === TCP_LISTEN && sockets.has(fields[9]!)) ports.push(parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/** A process's environment variables, from /proc/<pid>/environ. */
export function environmentOf(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of (readProc(`/proc/${pid}/environ`) ?? '').split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}
