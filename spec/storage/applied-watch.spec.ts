import { expect } from 'chai';
import { AppliedWatch } from '../../storage/engine/applied-watch.js';

describe('storage/engine: waiting for an operation to be applied', () => {
  it('resolves true at once for an applied operation, and when advance reaches a later one', async () => {
    let applied = 3;
    const watch = new AppliedWatch(() => applied);
    expect(await watch.waitFor(3, 0)).to.equal(true);
    const five = watch.waitFor(5, null);
    const four = watch.waitFor(4, null);
    let fiveDone = false;
    void five.then(() => (fiveDone = true));
    applied = 4;
    watch.advance(4);
    expect(await four).to.equal(true);
    await Promise.resolve();
    expect(fiveDone, 'operation 5 is not applied yet').to.equal(false);
    applied = 5;
    watch.advance(5);
    expect(await five).to.equal(true);
  });

  it('resolves false when the timeout is 0, when the signal aborts, and when every waiter is cancelled', async () => {
    const watch = new AppliedWatch(() => 0);
    expect(await watch.waitFor(1, 0)).to.equal(false);
    const abort = new AbortController();
    const waiting = watch.waitFor(1, null, abort.signal);
    abort.abort();
    expect(await waiting).to.equal(false);
    const cancelled = watch.waitFor(2, null);
    watch.cancelAll();
    expect(await cancelled).to.equal(false);
    watch.advance(10);
  });
});
