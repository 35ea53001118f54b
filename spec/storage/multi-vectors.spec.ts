import { expect } from 'chai';
import { ByteReader } from '../../storage/codec/byte-reader.js';
import { ByteWriter } from '../../storage/codec/byte-writer.js';
import { decodeEvent, encodeEvent, readConfig, writeConfig } from '../../storage/events/codec.js';
import type { CollectionConfig, DbEvent } from '../../storage/events/types.js';
import { MultiVectors } from '../../storage/views/multi-vectors.js';

const matrix = (rows: number[][]) => ({ dim: rows[0]!.length, values: Float32Array.from(rows.flat()) });

describe('storage: multivectors', () => {
  it('scores MaxSim per distance: the sum over query rows of the best row of the point', () => {
    const dot = new MultiVectors('m', { size: 2, distance: 'Dot', comparator: 'max_sim' });
    dot.set(1, matrix([[1, 0], [0, 2]]));
    const q = dot.prepare(matrix([[1, 1], [3, 0]]));
    // [1,1]: max(1, 2) = 2; [3,0]: max(3, 0) = 3
    expect(dot.maxSim(q, 1)).to.equal(5);
    expect(dot.maxSim(q, 2), 'a point without the multivector').to.equal(null);
    const euclid = new MultiVectors('e', { size: 2, distance: 'Euclid', comparator: 'max_sim' });
    euclid.set(1, matrix([[0, 0], [3, 4]]));
    expect(euclid.maxSim(euclid.prepare(matrix([[3, 4], [0, 1]])), 1)).to.equal(-1);
    const manhattan = new MultiVectors('l', { size: 2, distance: 'Manhattan', comparator: 'max_sim' });
    manhattan.set(1, matrix([[1, 1]]));
    expect(manhattan.maxSim(manhattan.prepare(matrix([[0, 0], [1, 3]])), 1)).to.equal(-4);
    const cosine = new MultiVectors('c', { size: 2, distance: 'Cosine', comparator: 'max_sim' });
    cosine.set(1, matrix([[2, 0], [0, 5]]));
    expect(Array.from(cosine.get(1)!.values), 'rows kept unit length').to.deep.equal([1, 0, 0, 1]);
    expect(cosine.maxSim(cosine.prepare(matrix([[3, 3]])), 1)).to.be.closeTo(Math.SQRT1_2, 1e-7);
  });

  it('compacts its buffer after many replacements, leaving matrices read before unchanged and scores the same', () => {
    const field = new MultiVectors('m', { size: 8, distance: 'Dot', comparator: 'max_sim' });
    const rowsOf = (id: number, round: number) => Array.from({ length: 1 + (id % 3) }, (_, r) => Array.from({ length: 8 }, (_, k) => ((id * 31 + round * 7 + r * 3 + k) % 17) - 8));
    for (let id = 0; id < 200; id++) field.set(id, matrix(rowsOf(id, 0)));
    const held = field.get(5)!;
    const heldCopy = Array.from(held.values);
    // About 2^20 floats replaced many times over: enough for the buffer to be compacted.
    for (let round = 1; round <= 400; round++) for (let id = 0; id < 200; id++) field.set(id, matrix(rowsOf(id, round)));
    expect(Array.from(held.values), 'a matrix read out never changes').to.deep.equal(heldCopy);
    const q = field.prepare(matrix([[1, 0, 0, 0, 0, 0, 0, 1]]));
    for (const id of [0, 5, 199]) {
      const now = rowsOf(id, 400);
      expect(Array.from(field.get(id)!.values)).to.deep.equal(now.flat());
      expect(field.maxSim(q, id)).to.equal(Math.max(...now.map((row) => row[0]! + row[7]!)));
    }
    field.remove(5);
    expect(field.get(5)).to.equal(null);
    expect(field.size).to.equal(199);
  });

  it('round-trips multivectors in log entries, and reads a format 6 config as one without them', () => {
    const config: CollectionConfig = { size: 0, distance: 'Cosine', m: 16, m0: 32, efConstruct: 200, ml: 1 / Math.log(16), multi: { '': { size: 2, distance: 'Dot', comparator: 'max_sim' } } };
    const events: DbEvent[] = [
      { type: 'create_collection', name: 'c', config },
      { type: 'upsert_points', collection: 'c', points: [{ id: 1, vector: null, payload: {}, labels: [], multi: { '': matrix([[1, 2], [3, 4]]) } }] },
      { type: 'update_points', collection: 'c', updates: [{ op: 'update_vectors', points: [{ id: 1, dense: {}, sparse: {}, multi: { '': matrix([[5, 6]]) } }] }] },
    ];
    for (const event of events) expect(decodeEvent(encodeEvent(event))).to.deep.equal(event);
    const w = new ByteWriter(64);
    writeConfig(w, { ...config, multi: undefined });
    const v7 = w.finish();
    // Format 6 ends the config after the sparse vectors: the multivectors' count is not there.
    const v6 = v7.subarray(0, v7.length - 4);
    const r = new ByteReader(v6);
    expect(readConfig(r, 6)).to.not.have.property('multi');
    r.expectEnd();
  });
});
