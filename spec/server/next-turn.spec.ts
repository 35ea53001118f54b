import { expect } from 'chai';
import type { Context } from 'koa';
import { countInFlight } from '../../server/middleware/in-flight.js';
import { betweenQuerySlices } from '../../server/next-turn.js';

/** Runs `steps` callbacks one event-loop turn apart (a request's steps: parse, body, answer ...); answers how many ran so far. */
function turnsOfWork(steps: number): () => number {
  let done = 0;
  const step = (): void => {
    done++;
    if (done < steps) setImmediate(step);
  };
  setImmediate(step);
  return () => done;
}

describe('server: the pause between two slices of a query on the request thread', () => {
  it('is one turn while no other request is in flight: other work gets one step in', async () => {
    const done = turnsOfWork(5);
    await betweenQuerySlices(0)();
    expect(done()).to.equal(1);
  });

  it('rests while another request is in flight, so that request runs all its steps before the query goes on', async () => {
    let release!: () => void;
    const request = { req: { socket: {} } } as unknown as Context;
    const inFlight = countInFlight()(request, () => new Promise<void>((resolve) => (release = resolve)));
    try {
      const done = turnsOfWork(5);
      await betweenQuerySlices(0)();
      expect(done()).to.equal(5);
      // The query's own request (over HTTP) is not another one: one turn again.
      const next = turnsOfWork(5);
      await betweenQuerySlices(1)();
      expect(next()).to.equal(1);
    } finally {
      release();
      await inFlight;
    }
  });
});
