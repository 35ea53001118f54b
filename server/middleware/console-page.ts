import { readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Middleware } from 'koa';
import { DbError, notFound } from '../../storage/errors.js';

/** dist/console, beside dist/server: where tools/build-console puts the page. */
const CONSOLE_DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../../console');
const PREFIX = '/console';
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.map': 'application/json' };
/** One file name of dist/console: no folders, nothing hidden, so no path can leave it. */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

export interface ConsolePageOptions {
  /** The credential schemes the API takes (`ApiKey`, `Bearer`); with any, the page asks for one before its first call. */
  authSchemes: readonly string[];
  dir?: string;
}

/**
 * The web console at /console: its static files, and settings.json telling the page whether to
 * ask for a key. Open without credentials, as the page holds no data: everything it shows comes
 * from the API, with the key the user types.
 */
export function consolePage({ authSchemes, dir = CONSOLE_DIST }: ConsolePageOptions): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== PREFIX && !ctx.path.startsWith(`${PREFIX}/`)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new DbError(405, `${ctx.method} is not allowed on ${ctx.path}: the console is read with GET`);
    }
    const name = ctx.path.slice(PREFIX.length + 1) || 'index.html';
    ctx.set('Cache-Control', 'no-cache');
    if (name === 'settings.json') {
      ctx.body = { auth_schemes: authSchemes };
      return;
    }
    if (!FILE_NAME.test(name) || !(extname(name) in TYPES)) throw notFound(`no console file ${ctx.path}`);
    try {
      ctx.body = await readFile(join(dir, name));
    } catch {
      throw notFound(name === 'index.html' ? 'the console is not built: run npm run build' : `no console file ${ctx.path}`);
    }
    ctx.type = TYPES[extname(name)]!;
  };
}
