import { expect } from 'chai';
import type { Payload } from '../../storage/events/types.js';
import { PayloadIndex } from '../../storage/views/payload-index.js';

describe('storage/views: the payload equality index', () => {
  it('answers every lookup as a scan of the payloads would, through adds and removes that take values from one point to many and back', () => {
    const index = new PayloadIndex();
    const held = new Map<number, Payload>();
    let seed = 7;
    const next = (n: number): number => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % n);
    const scan = (path: string, value: string | number): number[] => [...held].filter(([, p]) => p[path] === value).map(([slot]) => slot).sort((a, b) => a - b);
    const sorted = (slots: ReadonlySet<number>): number[] => [...slots].sort((a, b) => a - b);
    for (let step = 0; step < 4000; step++) {
      const slot = next(300);
      const old = held.get(slot);
      if (old) index.remove(slot, old);
      if (next(4) === 0) held.delete(slot);
      else {
        // Few shared values (`kind`) and mostly unique ones (`n`), so values move between one slot and several both ways.
        const payload: Payload = { kind: `k${next(5)}`, n: next(600) };
        index.add(slot, payload);
        held.set(slot, payload);
      }
      if (step % 97 !== 0) continue;
      for (let k = 0; k < 5; k++) expect(sorted(index.lookup('kind', `k${k}`)), `kind k${k} at step ${step}`).to.deep.equal(scan('kind', `k${k}`));
      for (let n = 0; n < 600; n += 7) expect(sorted(index.lookup('n', n)), `n ${n} at step ${step}`).to.deep.equal(scan('n', n));
      const small = [...held].filter(([, p]) => (p.n as number) < 50).map(([s]) => s).sort((a, b) => a - b);
      expect(sorted(index.lookupWhere('n', (v) => (v as number) < 50))).to.deep.equal(small);
      expect(index.distinctValues('n')).to.equal(new Set([...held.values()].map((p) => p.n)).size);
    }
  });

  it('indexes a point whose payload holds one value twice (an array) once', () => {
    const index = new PayloadIndex();
    index.add(4, { tags: ['a', 'a'] });
    expect([...index.lookup('tags', 'a')]).to.deep.equal([4]);
    index.remove(4, { tags: ['a', 'a'] });
    expect(index.lookup('tags', 'a').size).to.equal(0);
    expect(index.distinctValues('tags')).to.equal(0);
  });
});
