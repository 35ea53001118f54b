import { askForCredential } from './auth-dialog.js';
import { credentialHeaders, storedCredential } from './credential.js';

/** An answer of the API that is not a success: its status and the server's message. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A path segment, escaped: collection names may hold dots, and ids may be UUIDs. */
export const seg = (value: string | number): string => encodeURIComponent(String(value));

/**
 * The server's public HTTP API, as any client calls it, on the page's own origin. A 401 asks
 * for a key (once for all requests waiting) and sends the request again with it.
 */
export class Api {
  constructor(private readonly authSchemes: readonly string[]) {}

  get<T>(path: string): Promise<T> {
    return this.json<T>('GET', path);
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.json<T>('POST', path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.json<T>('PUT', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.json<T>('DELETE', path);
  }

  /** A binary download: the bytes and the file name the server suggests. */
  async download(path: string): Promise<{ blob: Blob; filename: string | null }> {
    const res = await this.send(path, { method: 'GET' });
    const disposition = res.headers.get('Content-Disposition') ?? '';
    return { blob: await res.blob(), filename: /filename="([^"]+)"/.exec(disposition)?.[1] ?? null };
  }

  /** A binary upload answered with JSON. */
  async upload<T>(path: string, body: Blob): Promise<T> {
    const res = await this.send(path, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body });
    return ((await res.json()) as { result: T }).result;
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = body === undefined ? { method } : { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
    const res = await this.send(path, init);
    return ((await res.json()) as { result: T }).result;
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    for (;;) {
      const res = await fetch(path, { ...init, headers: { ...(init.headers as Record<string, string>), ...credentialHeaders() } });
      if (res.ok) return res;
      const message = await errorMessage(res);
      if (res.status !== 401) throw new ApiError(res.status, message);
      await askForCredential(this.authSchemes, storedCredential() ? `The server refused the key: ${message}` : `The server needs credentials: ${message}`);
    }
  }
}

async function errorMessage(res: Response): Promise<string> {
  const text = await res.text();
  try {
    return (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    return text || `${res.status} ${res.statusText}`;
  }
}
