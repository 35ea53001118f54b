import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ToolRun {
  code: number;
  out: string;
  err: string;
}

/** Runs a compiled tool (dist/tools/<tool>/main.js) as its own process, stdout and stderr piped (not a terminal). */
export function runToolProcess(tool: string, args: readonly string[], env: Record<string, string> = {}): ToolRun {
  const main = fileURLToPath(new URL(`../../tools/${tool}/main.js`, import.meta.url));
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}
