import { connect, type Socket } from 'node:net';
import { chunkMessage, Dechunker } from '../../bolt/chunking.js';
import { packValue } from '../../bolt/packstream/encoder.js';
import { unpackValue } from '../../bolt/packstream/decoder.js';
import { Structure, type PackValue } from '../../bolt/packstream/structure.js';

/** Message signatures, for reading answers in tests. */
export const SUCCESS = 0x70;
export const RECORD = 0x71;
export const IGNORED = 0x7e;
export const FAILURE = 0x7f;
/** Request signatures. */
export const HELLO = 0x01;
export const LOGON = 0x6a;
export const LOGOFF = 0x6b;
export const RUN = 0x10;
export const PULL = 0x3f;
export const DISCARD = 0x2f;
export const RESET = 0x0f;

export const msg = (signature: number, ...fields: PackValue[]) => new Structure(signature, fields);

/** Bolt at the byte level, for what a driver does not let a test see (batches, IGNORED, older versions). */
export class RawBoltClient {
  private readonly answers: Structure[] = [];
  private waiting: ((s: Structure) => void) | null = null;
  private readonly dechunker = new Dechunker(1 << 24);

  private constructor(private readonly socket: Socket) {}

  /** Connects and negotiates, offering the given [major, minor, range] slots; answers the version the server chose. */
  static async open(port: number, offers: [number, number, number][]): Promise<{ client: RawBoltClient; version: [number, number] }> {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const hello = Buffer.alloc(20);
    hello.writeUInt32BE(0x6060b017, 0);
    offers.forEach(([major, minor, range], i) => hello.writeUInt32BE((range << 16) | (minor << 8) | major, 4 + i * 4));
    socket.write(hello);
    const reply = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
    const client = new RawBoltClient(socket);
    socket.on('data', (d: Buffer) => client.receive(d));
    if (reply.length > 4) client.receive(reply.subarray(4));
    return { client, version: [reply[3]!, reply[2]!] };
  }

  private receive(data: Buffer): void {
    for (const m of this.dechunker.feed(data)) {
      const s = unpackValue(m) as Structure;
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        w(s);
      } else this.answers.push(s);
    }
  }

  send(...messages: Structure[]): void {
    for (const m of messages) this.socket.write(chunkMessage(packValue(m)));
  }

  next(): Promise<Structure> {
    const ready = this.answers.shift();
    return ready ? Promise.resolve(ready) : new Promise((resolve) => (this.waiting = resolve));
  }

  /** The next `count` answers. */
  async take(count: number): Promise<Structure[]> {
    const out: Structure[] = [];
    for (let i = 0; i < count; i++) out.push(await this.next());
    return out;
  }

  /** Resolves true once the server has closed the connection. */
  closed(): Promise<boolean> {
    return this.socket.closed ? Promise.resolve(true) : new Promise((resolve) => this.socket.once('close', () => resolve(true)));
  }

  close(): void {
    this.socket.destroy();
  }
}
