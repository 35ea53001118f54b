import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { runTool } from '../lib/run-tool.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const BROWSER_DIST = join(repo, 'dist/browser');

/**
 * `npm run build:browser`: the in-browser library as one ES module (dist/browser/vectorgraphdb.js)
 * with its type declarations, and the demo page beside it. platform 'browser' makes esbuild
 * refuse any Node built-in, so nothing of Node's can slip into the bundle.
 */
export async function buildBrowser(): Promise<string> {
  mkdirSync(BROWSER_DIST, { recursive: true });
  await build({
    entryPoints: [join(repo, 'browser/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: join(BROWSER_DIST, 'vectorgraphdb.js'),
    sourcemap: true,
    logLevel: 'warning',
  });
  execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-b', join(repo, 'tsconfig.browser.json')], { stdio: 'inherit' });
  writeFileSync(join(BROWSER_DIST, 'vectorgraphdb.d.ts'), "export * from './types/browser/index.js';\n");
  const demo = join(repo, 'browser/demo');
  for (const file of readdirSync(demo)) copyFileSync(join(demo, file), join(BROWSER_DIST, file));
  return BROWSER_DIST;
}

const USAGE = `usage: npm run build:browser
Builds the in-browser library as one ES module, dist/browser/vectorgraphdb.js, with its type
declarations (vectorgraphdb.d.ts) and the demo page (index.html) beside it. Takes no flags.
  -h, --help   this text
Exit codes: 0 built, 1 the build failed, 2 bad arguments.`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runTool({ name: 'build-browser', usage: USAGE, flags: {} }, async () => {
    const dir = await buildBrowser();
    console.log(`built ${join(dir, 'vectorgraphdb.js')} (+ .d.ts and the demo page, index.html)`);
    return 0;
  });
}
