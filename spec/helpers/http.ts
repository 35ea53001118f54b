import { pino } from 'pino';
import { readConfig } from '../../server/config.js';
import { startService, type RunningService, type ServiceOptions } from '../../server/service.js';
import { checkResponse } from './response-contract.js';
import { tempDir } from './temp-dir.js';

export interface TestServer {
  url: string;
  dataDir: string;
  service: RunningService;
  /** Stops the server; the data dir stays for a restart unless `remove` is called. */
  stop(): Promise<void>;
  remove(): void;
}

/** The real service, in process, on a random loopback port with its own temp data dir. */
export async function startTestServer(env: Record<string, string> = {}, dataDir?: string, options: ServiceOptions = {}): Promise<TestServer> {
  const dir = dataDir ? { path: dataDir, remove: () => {} } : tempDir();
  // Port 0 for the Qdrant dialect and its gRPC port too, so servers started side by side never collide on 6335 or 6334.
  // SERVICE_CYPHER_WORKERS from the environment, when set, so a suite can be run with replicas and without (=0).
  const workers: Record<string, string> = process.env.SERVICE_CYPHER_WORKERS === undefined ? {} : { SERVICE_CYPHER_WORKERS: process.env.SERVICE_CYPHER_WORKERS };
  const config = readConfig({ SERVICE_HOST: '127.0.0.1', SERVICE_PORT: '0', SERVICE_QDRANT_PORT: '0', SERVICE_QDRANT_GRPC_PORT: '0', SERVICE_BOLT_PORT: '0', SERVICE_DATA_DIR: dir.path, ...workers, ...env });
  const service = await startService(config, pino({ level: 'silent' }), options);
  return { url: service.url, dataDir: dir.path, service, stop: () => service.close(), remove: dir.remove };
}

/** A suite's server: started before (each) test, stopped and its data dir removed after; `restart` keeps the data dir. */
export interface SuiteServer {
  readonly url: string;
  readonly dataDir: string;
  readonly service: RunningService;
  restart(): Promise<void>;
}

/**
 * Registers the hooks that run the real server for a suite (`'each'`: a fresh one per test)
 * and answers a handle that always names the running one.
 */
export function useTestServer(env: Record<string, string> = {}, scope: 'all' | 'each' = 'all'): SuiteServer {
  let current: TestServer | null = null;
  const live = (): TestServer => {
    if (!current) throw new Error('the suite server is not running (use it inside a test or hook)');
    return current;
  };
  (scope === 'each' ? beforeEach : before)(async () => {
    current = await startTestServer(env);
  });
  (scope === 'each' ? afterEach : after)(async () => {
    await current?.stop();
    current?.remove();
    current = null;
  });
  return {
    get url() {
      return live().url;
    },
    get dataDir() {
      return live().dataDir;
    },
    get service() {
      return live().service;
    },
    async restart() {
      const old = live();
      await old.stop();
      current = await startTestServer(env, old.dataDir);
      current.remove = old.remove;
    },
  };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** One request; a JSON answer is checked against the OpenAPI document (spec/helpers/response-contract.ts) and fails the test when it differs. */
export async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(url + path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the raw text is returned for the assertion to look at
  }
  if (parsed !== undefined && res.headers.get('content-type')?.includes('json')) checkResponse(method, path, res.status, parsed);
  return { status: res.status, headers: res.headers, body: parsed };
}
