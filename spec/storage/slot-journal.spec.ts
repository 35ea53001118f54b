import { expect } from 'chai';
import { SlotJournal } from '../../storage/views/slot-journal.js';

describe('storage: the journal of slots whose payload changed', () => {
  it('keeps nothing until watched, then every change in order from a position', () => {
    const j = new SlotJournal();
    j.note(1);
    expect(j.end).to.equal(0);
    const epoch = j.epoch;
    j.watching = true;
    expect(j.epoch, 'readers start over when it is turned on').to.equal(epoch + 1);
    const from = j.end;
    for (const slot of [4, 9, 4]) j.note(slot);
    expect(Array.from(j.since(from)!)).to.deep.equal([4, 9, 4]);
    expect(Array.from(j.since(from + 2)!)).to.deep.equal([4]);
  });

  it('forgets what every reader has read, and answers null for a position no longer kept', () => {
    const j = new SlotJournal();
    j.watching = true;
    for (let slot = 0; slot < 1000; slot++) j.note(slot);
    j.forget(600);
    expect(j.since(599)).to.equal(null);
    expect(Array.from(j.since(998)!)).to.deep.equal([998, 999]);
    expect(j.end).to.equal(1000);
  });

  it('moves its epoch on a restart (a state loaded) and drops what it kept; unwatched, it drops everything', () => {
    const j = new SlotJournal();
    j.watching = true;
    j.note(3);
    const epoch = j.epoch;
    j.restart();
    expect(j.epoch).to.equal(epoch + 1);
    expect(j.since(0)).to.equal(null);
    j.note(5);
    j.watching = false;
    j.note(6);
    expect(Array.from(j.since(j.end)!)).to.deep.equal([]);
    expect(j.since(j.end - 1)).to.equal(null);
  });

  it('starts over once it holds its limit, so changes nobody reads cannot grow it without end', () => {
    const j = new SlotJournal();
    j.watching = true;
    j.limit = 100;
    const from = j.end;
    const epoch = j.epoch;
    for (let slot = 0; slot < 250; slot++) j.note(slot);
    expect(j.epoch).to.equal(epoch + 2);
    expect(j.since(from)).to.equal(null);
    expect(Array.from(j.since(j.end - 50)!)).to.deep.equal(Array.from({ length: 50 }, (_, i) => 200 + i));
  });
});
