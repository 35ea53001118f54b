import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { CorruptDataError } from '../../storage/errors.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { joinChunks } from '../../storage/codec/join-chunks.js';
import { BLOCK, block, FORMAT_VERSION, MAGIC } from '../../storage/export/format.js';
import { ByteWriter } from '../../storage/codec/byte-writer.js';
import { writeFieldIndexes } from '../../storage/events/codec.js';
import { DISTANCES, type CollectionConfig } from '../../storage/events/types.js';

function sample(): Collection {
  const c = new Collection('src', { size: 3, distance: 'Dot', m: 8, m0: 16, efConstruct: 32, ml: 0.5 }, 1);
  c.upsert(Array.from({ length: 2500 }, (_, id) => ({ id, vector: Float32Array.of(id, -id, 0.5), payload: { n: id, s: `p${id}` }, labels: id % 2 ? ['Odd'] : [] })));
  c.upsert([{ id: 9999, vector: null, payload: { node: true }, labels: ['Node'] }]);
  c.graph.add(1, 2, 'KNOWS', 0.5);
  c.graph.add(2, 9999, 'LIKES', 2);
  c.graph.add(2, 9999, 'LIKES', 3, { since: 2020 });
  return c;
}

const fileOf = (c: Collection): Uint8Array => joinChunks([...exportCollection(c).chunks()]);

function read(bytes: Uint8Array, chunk = 777) {
  const r = new ImportReader();
  for (let i = 0; i < bytes.length; i += chunk) r.feed(bytes.subarray(i, i + chunk));
  return r.finish();
}


/** A config as files before version 6 lay it out: the one vector's, with no named or sparse vectors. */
function writeConfigBefore6(w: ByteWriter, c: CollectionConfig): void {
  w.u32(c.size).u8(DISTANCES.indexOf(c.distance)).u32(c.m).u32(c.m0).u32(c.efConstruct).f64(c.ml);
}

describe('storage/export format', () => {
  it('round-trips points (with and without vectors), payloads, labels, edges and the config, in any chunking', () => {
    const c = sample();
    const bytes = fileOf(c);
    for (const chunk of [1, 13, 4096, bytes.length]) {
      const file = read(bytes, chunk);
      expect(file.name).to.equal('src');
      expect(file.config).to.deep.equal(c.config);
      expect(file.points).to.have.length(2501);
      expect(file.points[7]).to.deep.equal({ id: 7, vector: Float32Array.of(7, -7, 0.5), payload: { n: 7, s: 'p7' }, labels: ['Odd'] });
      expect(file.points[2500]).to.deep.equal({ id: 9999, vector: null, payload: { node: true }, labels: ['Node'] });
      expect(file.edges, 'parallel edges and relationship properties').to.deep.equal([
        { from: 1, to: 2, relation: 'KNOWS', weight: 0.5 },
        { from: 2, to: 9999, relation: 'LIKES', weight: 2 },
        { from: 2, to: 9999, relation: 'LIKES', weight: 3, properties: { since: 2020 } },
      ]);
    }
  });

  it('is a point-in-time view: writes after the start do not show, and slots are not reused until it ends', () => {
    const c = sample();
    const exp = exportCollection(c);
    const it = exp.chunks();
    const first = it.next();
    c.remove(5);
    c.upsert([{ id: 6, vector: Float32Array.of(0, 0, 0), payload: { changed: true }, labels: [] }, { id: 70000, vector: Float32Array.of(1, 1, 1), payload: {}, labels: [] }]);
    while (c.indexSome(10_000));
    const parts = [first.value!, ...it];
    const file = read(Uint8Array.from(parts.flatMap((p) => [...p])));
    expect(file.points).to.have.length(2501);
    expect(file.points.find((p) => p.id === 5)!.vector).to.deep.equal(Float32Array.of(5, -5, 0.5));
    expect(file.points.find((p) => p.id === 6)).to.deep.equal({ id: 6, vector: Float32Array.of(6, -6, 0.5), payload: { n: 6, s: 'p6' }, labels: [] });
    expect(file.points.some((p) => p.id === 70000)).to.equal(false);
  });

  it('carries the collection settings and the operation_id it was taken at in the header', () => {
    const c = sample();
    c.settings = { optimizer_config: { indexing_threshold: 7 }, cypher_indexes: { by_name: { name: 'by_name', label: 'L' } } };
    const file = read(joinChunks([...exportCollection(c, 4321).chunks()]));
    expect(file.exportedAt).to.equal(4321);
    expect(file.settings).to.deep.equal(c.settings);
  });

  it('reads a version 4 file: payload index declarations, no settings, no operation_id', () => {
    const config = { size: 1, distance: 'Euclid' as const, m: 8, m0: 16, efConstruct: 32, ml: 0.5 };
    const header = new ByteWriter(64).str('old');
    writeConfigBefore6(header, config);
    const indexes = new ByteWriter(64);
    writeFieldIndexes(indexes, { k: { type: 'keyword', params: {} } });
    const points = new ByteWriter(64).u32(1).u8(0).f64(1).u8(0).str('{"k":"a"}').u16(0);
    const parts = [
      new ByteWriter(8).bytes(MAGIC).u16(4).u16(0).finish(),
      block(BLOCK.header, header.f64(1).f64(0).finish()),
      block(BLOCK.indexes, indexes.finish()),
      block(BLOCK.points, points.finish()),
      block(BLOCK.trailer, new ByteWriter(24).f64(1).f64(0).u32(3).finish()),
    ];
    const file = read(Uint8Array.from(parts.flatMap((p) => [...p])));
    expect(file).to.deep.include({ name: 'old', config, indexes: { k: { type: 'keyword', params: {} } }, settings: {}, exportedAt: 0 });
    expect(file.points).to.deep.equal([{ id: 1, vector: null, payload: { k: 'a' }, labels: [] }]);
  });

  it('refuses settings that are not an object of objects as damage', () => {
    const header = new ByteWriter(64).str('bad');
    writeConfigBefore6(header, { size: 1, distance: 'Euclid', m: 8, m0: 16, efConstruct: 32, ml: 0.5 });
    const parts = [new ByteWriter(8).bytes(MAGIC).u16(5).u16(0).finish(), block(BLOCK.header, header.f64(0).f64(0).f64(1).str('{"group":[1]}').finish())];
    expect(() => read(Uint8Array.from(parts.flatMap((p) => [...p])))).to.throw(CorruptDataError, /settings must map each group to an object/);
  });

  it('reads a version 1 file: float32 weights, no edge properties', () => {
    const config = { size: 1, distance: 'Euclid' as const, m: 8, m0: 16, efConstruct: 32, ml: 0.5 };
    const header = new ByteWriter(64).str('old');
    writeConfigBefore6(header, config);
    const points = new ByteWriter(64).u32(2).f64(1).u8(0).str('{}').u16(0).f64(2).u8(0).str('{}').u16(0);
    const edges = new ByteWriter(64).u32(1).f64(1).f64(2).str('R').f32(0.5);
    const parts = [
      new ByteWriter(8).bytes(MAGIC).u16(1).u16(0).finish(),
      block(BLOCK.header, header.f64(2).f64(1).finish()),
      block(BLOCK.points, points.finish()),
      block(BLOCK.edges, edges.finish()),
      block(BLOCK.trailer, new ByteWriter(24).f64(2).f64(1).u32(3).finish()),
    ];
    const file = read(Uint8Array.from(parts.flatMap((p) => [...p])));
    expect(file.edges).to.deep.equal([{ from: 1, to: 2, relation: 'R', weight: 0.5 }]);
    expect(file.points.map((p) => p.id)).to.deep.equal([1, 2]);
  });

  it('rejects a bad magic, another version, a flipped byte anywhere, a truncation and trailing bytes', () => {
    const bytes = fileOf(sample());
    const expectCorrupt = (b: Uint8Array, message: RegExp) => expect(() => read(b, 4096)).to.throw(CorruptDataError, message);
    const magic = Uint8Array.from(bytes);
    magic[0] = 0x58;
    expectCorrupt(magic, /magic/);
    const version = Uint8Array.from(bytes);
    version[4] = FORMAT_VERSION + 1;
    expectCorrupt(version, new RegExp(`unsupported export format version ${FORMAT_VERSION + 1}`));
    for (const at of [9, 20, 5000, bytes.length - 3]) {
      const flipped = Uint8Array.from(bytes);
      flipped[at]! ^= 0x40;
      expect(() => read(flipped, 4096), `byte ${at}`).to.throw(CorruptDataError);
    }
    for (const len of [0, 3, 8, 100, bytes.length - 1]) expectCorrupt(bytes.subarray(0, len), /ends early|checksum/);
    expectCorrupt(Uint8Array.from([...bytes, 1, 2, 3]), /after the trailer/);
  });
});
