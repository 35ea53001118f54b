import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { runTool } from '../lib/run-tool.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SOURCE = join(repo, 'console');
export const CONSOLE_DIST = join(repo, 'dist/console');
const BUNDLE = join(CONSOLE_DIST, 'app.js');
const STATIC_FILES = ['index.html', 'style.css'];

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

/** The bundle is newer than every console source, this tool and the installed packages: nothing to do. */
function upToDate(): boolean {
  if (!existsSync(BUNDLE)) return false;
  const inputs = [SOURCE, fileURLToPath(import.meta.url), join(repo, 'package-lock.json')];
  return Math.max(...inputs.map(newestChange)) < statSync(BUNDLE).mtimeMs;
}

/**
 * The web console (console/) as static files in dist/console: its TypeScript type-checked
 * against the DOM (its own tsconfig, apart from the server's), then bundled by esbuild with
 * CodeMirror and cytoscape inside, so the page fetches nothing from elsewhere.
 */
export async function buildConsole(): Promise<{ dir: string; built: boolean }> {
  if (upToDate()) return { dir: CONSOLE_DIST, built: false };
  execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', join(SOURCE, 'tsconfig.json')], { stdio: 'inherit' });
  mkdirSync(CONSOLE_DIST, { recursive: true });
  await build({
    entryPoints: [join(SOURCE, 'main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: BUNDLE,
    minify: true,
    sourcemap: true,
    logLevel: 'warning',
  });
  for (const file of STATIC_FILES) copyFileSync(join(SOURCE, file), join(CONSOLE_DIST, file));
  return { dir: CONSOLE_DIST, built: true };
}

const USAGE = `usage: npm run build:console
Builds the web console served at /console into dist/console: app.js (one bundle with its
source map), index.html and style.css. Skips the work when nothing in console/ changed.
Runs as part of npm run build, npm start and npm test. Takes no flags.
  -h, --help   this text
Exit codes: 0 built, 1 the build failed, 2 bad arguments.`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runTool({ name: 'build-console', usage: USAGE, flags: {} }, async () => {
    const { dir, built } = await buildConsole();
    console.log(built ? `built the console into ${dir}` : `the console in ${dir} is up to date`);
    return 0;
  });
}
