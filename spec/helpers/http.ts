import { pino } from 'pino';
import { readConfig } from '../../server/config.js';
import { startService, type RunningService } from '../../server/service.js';
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
export async function startTestServer(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const dir = dataDir ? { path: dataDir, remove: () => {} } : tempDir();
  const config = readConfig({ SERVICE_HOST: '127.0.0.1', SERVICE_PORT: '0', SERVICE_DATA_DIR: dir.path, ...env });
  const service = await startService(config, pino({ level: 'silent' }));
  return { url: service.url, dataDir: dir.path, service, stop: () => service.close(), remove: dir.remove };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: any;
}

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
  return { status: res.status, headers: res.headers, body: parsed };
}
