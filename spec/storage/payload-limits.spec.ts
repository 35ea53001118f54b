import { expect } from 'chai';
import { nestsDeeperThan, utf8Length } from '../../storage/engine/payload-shape.js';
import { readConfig } from '../../server/config.js';
import { PayloadIndex } from '../../storage/views/payload-index.js';
import { valuesAt } from '../../storage/views/payload-paths.js';

/** {k: {k: ... {k: 'x'}}} with `levels` objects, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { k: 'x' };
  for (let i = 1; i < levels; i++) v = { k: v };
  return v;
}

describe('storage: payload walks and limits', () => {
  it('measures nesting exactly, at any depth, without the call stack', () => {
    expect(nestsDeeperThan(nested(64), 64)).to.equal(false);
    expect(nestsDeeperThan(nested(65), 64)).to.equal(true);
    expect(nestsDeeperThan({ a: [[1]], b: 'x' }, 3)).to.equal(false);
    expect(nestsDeeperThan({ a: [[[1]]] }, 3)).to.equal(true);
    expect(nestsDeeperThan(nested(200_000), 1000)).to.equal(true);
  });

  it('indexes and reads a payload far deeper than any limit allows, iteratively', () => {
    const deep = nested(100_000);
    const index = new PayloadIndex();
    index.add(7, deep);
    const path = Array.from({ length: 100_000 }, () => 'k');
    expect([...index.lookup(path.join('.'), 'x')]).to.deep.equal([7]);
    expect(valuesAt(deep, path)).to.deep.equal(['x']);
    index.remove(7, deep);
    expect(index.lookup(path.join('.'), 'x').size).to.equal(0);
  });

  it('reads own keys only: inherited names are absent', () => {
    expect(valuesAt({}, ['constructor'])).to.deep.equal([]);
    expect(valuesAt({ a: {} }, ['a', 'hasOwnProperty'])).to.deep.equal([]);
    expect(valuesAt(JSON.parse('{"__proto__": 5, "constructor": [1, 2]}'), ['__proto__'])).to.deep.equal([5]);
    expect(valuesAt(JSON.parse('{"constructor": [1, 2]}'), ['constructor'])).to.deep.equal([1, 2]);
  });

  it('counts UTF-8 bytes as Node does', () => {
    for (const s of ['', 'ascii', 'é', '€', '😀 and é', '\ud800 lone', 'end \udc00', 'x'.repeat(1000)]) {
      expect(utf8Length(s), JSON.stringify(s)).to.equal(Buffer.byteLength(s, 'utf8'));
    }
  });

  it('reads the limits from SERVICE_* variables and refuses values out of range', () => {
    const limits = readConfig({ SERVICE_MAX_PAYLOAD_DEPTH: '128', SERVICE_MAX_PAYLOAD_BYTES: '2048', SERVICE_MAX_POINTS_PER_COLLECTION: '10', SERVICE_MAX_COLLECTIONS: '3' }).writeLimits;
    expect(limits).to.deep.equal({ maxPayloadDepth: 128, maxPayloadBytes: 2048, maxPointsPerCollection: 10, maxCollections: 3 });
    expect(() => readConfig({ SERVICE_MAX_PAYLOAD_DEPTH: '251' })).to.throw(/SERVICE_MAX_PAYLOAD_DEPTH must be an integer from 0 to 250/);
    expect(() => readConfig({ SERVICE_MAX_COLLECTIONS: '0' })).to.throw(/SERVICE_MAX_COLLECTIONS must be at least 1/);
  });
});
