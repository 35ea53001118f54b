import { expect } from 'chai';
import { JsonParsers, JsonParserStoppedError, JsonSyntaxError, parserThreadsFor } from '../../workers/json-parsers.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('workers: JSON parser threads', () => {
  let parsers: JsonParsers;
  beforeEach(() => {
    parsers = new JsonParsers(2);
  });
  afterEach(async () => {
    await parsers.close();
  });

  it('parses a body on a thread, its vectors packed and the rest as JSON.parse makes it', async () => {
    const text = JSON.stringify({ points: [{ id: 1, vector: [0.5, 1e-7, -2], payload: { text: 'ünï €', nums: [1, 2], deep: { a: null } } }] });
    const bytes = bytesOf(text);
    const body = (await parsers.parse(bytes)) as { points: { vector: unknown; payload: unknown }[] };
    expect(body.points[0]!.vector).to.deep.equal(Float64Array.from([0.5, 1e-7, -2]));
    expect(body.points[0]!.payload).to.deep.equal(JSON.parse(text).points[0].payload);
    // Given up, not copied.
    expect(bytes.byteLength).to.equal(0);
    expect(parsers.parsed).to.equal(1);
  });

  it('copies a view of a larger buffer rather than taking the buffer from under it', async () => {
    const whole = bytesOf('xx{"searches": [{"vector": [1, 2]}]}yy');
    const view = whole.subarray(2, whole.length - 2);
    expect(await parsers.parse(view)).to.deep.equal({ searches: [{ vector: Float64Array.from([1, 2]) }] });
    expect(whole.byteLength).to.equal(38);
  });

  it('drops a UTF-8 byte order mark, as the request thread does', async () => {
    const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, ...bytesOf('{"a": [1]}')]);
    expect(await parsers.parse(bytes)).to.deep.equal({ a: [1] });
  });

  it('refuses text that is not JSON, and a __proto__ key, as syntax errors that are 400s', async () => {
    for (const text of ['{"points": [', '', '{"points": [], "__proto__": {"x": 1}}']) {
      const err = await parsers.parse(bytesOf(text)).then(
        () => null,
        (e: Error) => e,
      );
      expect(err, text).to.be.instanceOf(JsonSyntaxError);
      expect(err).to.be.instanceOf(SyntaxError);
      expect((err as JsonSyntaxError).status).to.equal(400);
      expect(err!.message, text).to.equal(syntaxMessage(text));
    }
  });

  it('fails the bodies of a thread that stops, and starts another for the next', async () => {
    parsers.onDispatch = (thread) => void thread.terminate();
    const err = await parsers.parse(bytesOf('{"a": 1}')).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).to.be.instanceOf(JsonParserStoppedError);
    expect(parsers.stopped).to.equal(1);
    parsers.onDispatch = null;
    expect(await parsers.parse(bytesOf('{"a": 2}'))).to.deep.equal({ a: 2 });
    expect(parsers.parsed).to.equal(1);
  });

  it('fails the oldest body of a thread whose answer cannot be read, and answers the next', async () => {
    // The event an answer too deep to deserialize would fire on the request thread; the body's
    // own answer, arriving after, finds nothing waiting and is dropped.
    parsers.onDispatch = (thread) => void thread.emit('messageerror', new Error('Maximum call stack size exceeded'));
    const err = await parsers.parse(bytesOf('{"a": 1}')).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.equal('the parsed body could not be read: Maximum call stack size exceeded');
    parsers.onDispatch = null;
    expect(await parsers.parse(bytesOf('{"a": 2}'))).to.deep.equal({ a: 2 });
    expect(parsers.stopped).to.equal(0);
  });

  it('spreads bodies over its threads and answers each its own', async () => {
    const threads = new Set<unknown>();
    parsers.onDispatch = (thread) => void threads.add(thread);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => parsers.parse(bytesOf(JSON.stringify({ i, searches: [{ vector: [i] }] })))));
    expect(answers).to.deep.equal(Array.from({ length: 20 }, (_, i) => ({ i, searches: [{ vector: Float64Array.from([i]) }] })));
    expect(threads.size).to.equal(2);
  });

  it('takes all cores but the request thread, one at least and four at most', () => {
    expect([1, 2, 3, 8, 64].map(parserThreadsFor)).to.deep.equal([1, 1, 2, 4, 4]);
  });
});

/** The message the request thread's parse gives for `text`. */
function syntaxMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (Object.hasOwn(parsed, '__proto__')) return 'Object contains forbidden prototype property';
    return 'parsed';
  } catch (err) {
    return (err as Error).message;
  }
}
