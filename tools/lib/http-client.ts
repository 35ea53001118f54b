import { Agent, request } from 'node:http';

/** A keep-alive JSON client on node:http, lighter than fetch for load loops. */
export class HttpClient {
  private readonly agent: Agent;

  constructor(private readonly base: string, sockets: number) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  /**
   * One request. A kept-alive socket the server closed just as it was reused fails with
   * ECONNRESET before anything was sent back; as Node's documentation advises, that one case
   * is retried once.
   */
  send(method: string, path: string, body?: string | Buffer, contentType = 'application/json', retried = false): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const headers = body ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) } : {};
      const req = request(this.base + path, { method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNRESET' && req.reusedSocket && !retried) resolve(this.send(method, path, body, contentType, true));
        else reject(err);
      });
      req.end(body);
    });
  }

  /** Like send, but a non-2xx answer is an error. */
  async json(method: string, path: string, body?: string): Promise<unknown> {
    const res = await this.send(method, path, body);
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return JSON.parse(res.text) as unknown;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Runs `total` tasks with `concurrency` workers; returns each task's latency in ms. */
export async function runConcurrent(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<Float64Array> {
  const latencies = new Float64Array(total);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < total; i = next++) {
      const start = performance.now();
      await task(i);
      latencies[i] = performance.now() - start;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return latencies;
}
