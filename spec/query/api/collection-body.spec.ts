import { expect } from 'chai';
import { parseCollectionBody } from '../../../query/api/collection-body.js';

const refusal = (body: unknown): string => {
  try {
    parseCollectionBody(body);
  } catch (err) {
    return (err as Error).message;
  }
  return expect.fail('the body was accepted');
};

describe('query/api: Create Collection with named and sparse vectors', () => {
  it('reads named vectors over the collection HNSW settings, "" as the unnamed vector, and sparse vectors with their options', () => {
    const config = parseCollectionBody({
      vectors: { '': { size: 4, distance: 'dot' }, text: { size: 3, distance: 'Cosine', hnsw_config: { ef_construct: 50 }, on_disk: true } },
      sparse_vectors: { bm25: { modifier: 'idf', index: { on_disk: true, full_scan_threshold: null } } },
      hnsw_config: { m: 8, ef_construct: 100 },
    });
    const hnsw = { m: 8, m0: 16, ml: 1 / Math.log(8) };
    expect(config).to.deep.equal({
      size: 4,
      distance: 'Dot',
      ...hnsw,
      efConstruct: 100,
      named: { text: { size: 3, distance: 'Cosine', ...hnsw, efConstruct: 50, onDisk: true } },
      sparse: { bm25: { modifier: 'idf', index: { on_disk: true } } },
    });
    expect(parseCollectionBody({ sparse_vectors: { s: {} } }), 'sparse vectors only').to.deep.include({ size: 0, sparse: { s: { modifier: 'none', index: {} } } });
  });

  it('refuses what it cannot keep, naming it', () => {
    expect(refusal({ vectors: { a: { size: 2, distance: 'Dot' } }, sparse_vectors: { a: {} } })).to.equal('sparse_vectors.a names a dense vector too: give each vector its own name');
    expect(refusal({ vectors: { a: { size: 2, distance: 'Dot', datatype: 'uint8' } } })).to.match(/^vectors\.a\.datatype must be "float32" \(.*float16 and uint8 are not supported\), got "uint8"/);
    expect(refusal({ vectors: { a: { size: 2, distance: 'Dot', hnsw_config: { m: 8, m0: 4 } } } })).to.equal('vectors.a.hnsw_config.m0 must be an integer from 8 to 512, got 4');
    expect(refusal({ vectors: {} })).to.equal('vectors must name at least one vector (or send sparse_vectors)');
    expect(refusal({ vectors: { ['v'.repeat(256)]: { size: 2, distance: 'Dot' } } })).to.match(/^vector name "v+\.\.\." is longer than 255 characters$/);
    expect(refusal({ sparse_vectors: { s: { modifier: 'bm25' } } })).to.match(/^sparse_vectors\.s/);
    expect(refusal({ vectors: { size: 2, distance: 'L1' } }), 'one vector keeps its messages').to.equal('vectors.distance must be one of Cosine, Euclid, Dot, Manhattan, got "L1"');
  });
});
