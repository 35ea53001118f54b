import { expect } from 'chai';
import { ByteWriter } from '../../storage/codec/byte-writer.js';
import { decodeEvent, encodeEvent } from '../../storage/events/codec.js';
import type { DbEvent } from '../../storage/events/types.js';
import { CorruptDataError } from '../../storage/errors.js';
import { frameRecord, unframeRecord } from '../../storage/log/record.js';

const events: DbEvent[] = [
  { type: 'create_collection', name: 'docs', config: { size: 3, distance: 'Dot', m: 8, m0: 20, efConstruct: 64, ml: 0.5 } },
  { type: 'delete_collection', name: 'docs' },
  {
    type: 'upsert_points',
    collection: 'docs',
    points: [
      { id: 2 ** 53 - 1, vector: Float32Array.of(0.25, -1.5, 3e-8), payload: { city: 'Zürich', tags: ['a', 'b'], n: { x: 1 } }, labels: ['Doc', 'Page'] },
      { id: 0, vector: null, payload: {}, labels: [] },
    ],
  },
  { type: 'delete_points', collection: 'docs', ids: [1, 5, 2 ** 40] },
];

describe('storage/events codec', () => {
  for (const event of events) {
    it(`round-trips ${event.type}`, () => {
      expect(decodeEvent(encodeEvent(event))).to.deep.equal(event);
    });
  }

  it('stores vectors as raw float32 bytes, not JSON text', () => {
    const vector = Float32Array.of(1.5, 2.5, 3.5);
    const bytes = encodeEvent({ type: 'upsert_points', collection: 'c', points: [{ id: 1, vector, payload: {}, labels: [] }] });
    const raw = new Uint8Array(vector.buffer);
    const at = bytes.findIndex((_, i) => raw.every((b, j) => bytes[i + j] === b));
    expect(at).to.be.greaterThan(0);
    expect(new TextDecoder().decode(bytes)).not.to.include('1.5');
  });

  it('rejects an unknown format version, an unknown type and trailing bytes', () => {
    const good = encodeEvent(events[1]!);
    const badVersion = Uint8Array.from(good);
    badVersion[0] = 9;
    expect(() => decodeEvent(badVersion)).to.throw(CorruptDataError, /version 9/);
    const badType = Uint8Array.from(good);
    badType[1] = 77;
    expect(() => decodeEvent(badType)).to.throw(CorruptDataError, /type code 77/);
    expect(() => decodeEvent(Uint8Array.from([...good, 0]))).to.throw(CorruptDataError, /unexpected bytes/);
  });

  it('rejects every truncation of a record', () => {
    const bytes = encodeEvent(events[2]!);
    for (let len = 0; len < bytes.length; len++) {
      expect(() => decodeEvent(bytes.subarray(0, len)), `length ${len}`).to.throw(CorruptDataError);
    }
  });

  it('checks the CRC of a framed record and names the entry', () => {
    const record = frameRecord(encodeEvent(events[0]!));
    expect(decodeEvent(unframeRecord(record, 7))).to.deep.equal(events[0]);
    for (const at of [0, 5, record.length - 1]) {
      const flipped = Uint8Array.from(record);
      flipped[at]! ^= 0x10;
      expect(() => unframeRecord(flipped, 7)).to.throw(CorruptDataError, /entry 7 fails its checksum/);
    }
    expect(() => unframeRecord(record.subarray(0, 3), 7)).to.throw(CorruptDataError, /too short/);
  });
});

describe('storage/events codec: edges and graph writes', () => {
  it('round-trips upsert_edge with a float64 weight', () => {
    const event: DbEvent = { type: 'upsert_edge', collection: 'g', from: 1, to: 2 ** 50, relation: 'KNOWS', weight: 0.1 };
    expect(decodeEvent(encodeEvent(event))).to.deep.equal(event);
  });

  it('still reads a version 1 upsert_edge (bare float64 ids, float32 weight, no properties)', () => {
    const v1 = new ByteWriter(64).u8(1).u8(5).str('g').f64(1).f64(2).str('R').f32(0.5).finish();
    expect(decodeEvent(v1)).to.deep.equal({ type: 'upsert_edge', collection: 'g', from: 1, to: 2, relation: 'R', weight: 0.5 });
  });

  it('still reads version 2 entries: bare float64 ids, float64 weights and properties', () => {
    const edge = new ByteWriter(64).u8(2).u8(5).str('g').f64(1).f64(2).str('R').f64(0.25).str('{"since":1}').finish();
    expect(decodeEvent(edge)).to.deep.equal({ type: 'upsert_edge', collection: 'g', from: 1, to: 2, relation: 'R', weight: 0.25, properties: { since: 1 } });
    const upsert = new ByteWriter(64).u8(2).u8(3).str('c').u32(1).f64(7).u8(1).u32(2).f32(1).f32(2).str('{"a":1}').u16(1).str('L').finish();
    expect(decodeEvent(upsert)).to.deep.equal({ type: 'upsert_points', collection: 'c', points: [{ id: 7, vector: Float32Array.of(1, 2), payload: { a: 1 }, labels: ['L'] }] });
    const del = new ByteWriter(64).u8(2).u8(4).str('c').u32(2).f64(7).f64(2 ** 53 - 1).finish();
    expect(decodeEvent(del)).to.deep.equal({ type: 'delete_points', collection: 'c', ids: [7, 2 ** 53 - 1] });
  });

  it('round-trips an import with its settings and the operation_id of its file, and still reads a version 4 import without them', () => {
    const config = { size: 1, distance: 'Euclid' as const, m: 4, m0: 8, efConstruct: 8, ml: 0.5 };
    const imported: DbEvent = {
      type: 'import_collection',
      name: 'c',
      mode: 'create',
      config,
      points: [{ id: 1, vector: Float32Array.of(1), payload: {}, labels: [] }],
      edges: [],
      indexes: { k: { type: 'keyword', params: {} } },
      settings: { optimizer_config: { indexing_threshold: 5 }, cypher_constraints: { gone: null } },
      exportedAt: 123_456,
    };
    expect(decodeEvent(encodeEvent(imported))).to.deep.equal(imported);
    const v4 = new ByteWriter(128).u8(4).u8(6).str('c').u8(0).u32(1).u8(1).u32(4).u32(8).u32(8).f64(0.5).u32(0).u32(0).u32(0).finish();
    expect(decodeEvent(v4)).to.deep.equal({ type: 'import_collection', name: 'c', mode: 'create', config, points: [], edges: [], indexes: {} });
  });

  it('round-trips UUID ids in points, deletions, edges and graph changes, beside integer ids', () => {
    const a = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const b = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
    const events: DbEvent[] = [
      { type: 'upsert_points', collection: 'c', points: [{ id: a, vector: Float32Array.of(1), payload: {}, labels: [] }, { id: 3, vector: null, payload: {}, labels: [] }] },
      { type: 'delete_points', collection: 'c', ids: [b, 0, a] },
      { type: 'upsert_edge', collection: 'c', from: a, to: 3, relation: 'R', weight: 1 },
      { type: 'graph_write', collection: 'c', changes: [{ kind: 'set_node', id: b, payload: {}, labels: [] }, { kind: 'delete_node', id: a }, { kind: 'create_edge', id: 1, edge: { from: 3, to: b, relation: 'S', weight: 2 } }] },
    ];
    for (const event of events) expect(decodeEvent(encodeEvent(event))).to.deep.equal(event);
  });

  it('round-trips point updates of every kind', () => {
    const event: DbEvent = {
      type: 'update_points',
      collection: 'c',
      updates: [
        { op: 'upsert', points: [{ id: 'ffffffff-0000-4000-8000-000000000001', vector: Float32Array.of(1, 2), payload: { a: 1 }, labels: ['L'] }] },
        { op: 'delete', ids: [1, 2] },
        { op: 'set_payload', ids: [3], payload: { b: [1, 'x'] }, key: 'deep.er' },
        { op: 'set_payload', ids: [3], payload: {}, key: null },
        { op: 'overwrite_payload', ids: [4], payload: { c: null } },
        { op: 'delete_payload', ids: [5, 6], keys: ['a', 'b.c'] },
        { op: 'clear_payload', ids: [] },
        { op: 'update_vectors', points: [{ id: 7, dense: { '': Float32Array.of(0.5, -1) }, sparse: {} }] },
        { op: 'delete_vectors', ids: [8], names: [''] },
      ],
    };
    expect(decodeEvent(encodeEvent(event))).to.deep.equal(event);
  });

  it('refuses an unknown id tag as damage', () => {
    const bytes = encodeEvent({ type: 'delete_points', collection: 'c', ids: [1] });
    bytes[bytes.length - 9] = 7;
    expect(() => decodeEvent(bytes)).to.throw(CorruptDataError, /unknown point id tag 7/);
  });

  it('round-trips every kind of graph change', () => {
    const event: DbEvent = {
      type: 'graph_write',
      collection: 'g',
      changes: [
        { kind: 'create_node', point: { id: 7, vector: Float32Array.of(1, 2), payload: { name: 'x' }, labels: ['A', 'B'] } },
        { kind: 'update_node', point: { id: 3, vector: null, payload: {}, labels: [] } },
        { kind: 'set_node', id: 4, payload: { a: [1, 'x'] }, labels: ['L'] },
        { kind: 'create_edge', id: 12, edge: { from: 7, to: 3, relation: 'T', weight: 2.5, properties: { since: 2020, tags: ['a'] } } },
        { kind: 'update_edge', id: 4, weight: 1, properties: {} },
        { kind: 'delete_edge', id: 5 },
        { kind: 'delete_node', id: 9 },
      ],
    };
    expect(decodeEvent(encodeEvent(event))).to.deep.equal(event);
  });
});
