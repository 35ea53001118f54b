import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transform } from 'esbuild';
import type { ReadmeExample } from './readme-examples.js';

export interface ExampleRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The curl commands of a shell step that failed (an error status or no answer). */
  curlFailures: string[];
}

const EXAMPLE_TIMEOUT_MS = 50_000;

/**
 * Shell examples run with `set -euo pipefail`, so a failing command fails the step, and with
 * curl wrapped: a non-2xx status makes it exit 22 (still printing the error body), and every
 * failing curl is also written to a file, so one inside `$(…)` or a child bash is caught too.
 */
function shellPrelude(curlFailures: string): string {
  return [
    'set -euo pipefail',
    `export VGDB_CURL_FAILURES=${JSON.stringify(curlFailures)}`,
    'curl() {',
    '  local status=0',
    '  command curl --fail-with-body "$@" || status=$?',
    '  if [ "$status" -ne 0 ]; then echo "curl $* exited with $status" >> "$VGDB_CURL_FAILURES"; fi',
    '  return "$status"',
    '}',
    'export -f curl',
    '',
  ].join('\n');
}

/** The README talks to localhost:6333 (and the Qdrant port, localhost:6335, its gRPC port, localhost:6334, and Bolt, localhost:7687); the test's server listens elsewhere. */
export function pointAtServer(code: string, serverUrl: string, qdrantUrl: string | null = null, boltUrl: string | null = null, grpcUrl: string | null = null): string {
  const { host } = new URL(serverUrl);
  let rewritten = code.replaceAll('localhost:6333', host);
  if (qdrantUrl !== null) rewritten = rewritten.replaceAll('localhost:6335', new URL(qdrantUrl).host);
  if (boltUrl !== null) rewritten = rewritten.replaceAll('localhost:7687', new URL(boltUrl).host);
  if (grpcUrl !== null) rewritten = rewritten.replaceAll('localhost:6334', new URL(grpcUrl).host);
  for (const port of ['6333', '6334', '6335', '7687']) {
    if (new RegExp(`:${port}\\b`).test(rewritten)) throw new Error(`the example names port ${port} other than as localhost:${port}:\n${code}`);
  }
  return rewritten;
}

/**
 * Runs the command without blocking the event loop: the server answering the example runs in
 * this process. A run that outlives the timeout is killed and reported with code null.
 */
function run(command: string, args: string[], cwd: string): Promise<Omit<ExampleRun, 'curlFailures'>> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), EXAMPLE_TIMEOUT_MS);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** Runs one example in `cwd` against the server at `serverUrl`; `step` names its script file. */
export async function runExample(example: ReadmeExample, step: number, cwd: string, serverUrl: string, qdrantUrl: string | null = null, boltUrl: string | null = null, grpcUrl: string | null = null): Promise<ExampleRun> {
  const code = pointAtServer(example.code, serverUrl, qdrantUrl, boltUrl, grpcUrl);
  if (example.language === 'shell') {
    const script = join(cwd, `step-${step}.sh`);
    const failures = join(cwd, `step-${step}.curl-failures`);
    writeFileSync(script, shellPrelude(failures) + code);
    const result = await run('bash', ['--noprofile', '--norc', script], cwd);
    const curlFailures = existsSync(failures) ? readFileSync(failures, 'utf8').split('\n').filter((l) => l !== '') : [];
    return { ...result, curlFailures };
  }
  const js = example.language === 'ts' ? (await transform(code, { loader: 'ts', format: 'esm' })).code : code;
  const module = join(cwd, `step-${step}.mjs`);
  writeFileSync(module, js);
  return { ...(await run(process.execPath, [module], cwd)), curlFailures: [] };
}
