import { expect } from 'chai';
import { MAX_BODY_NESTING } from '../../../query/api/check-body.js';
import { parseCollectionBody } from '../../../query/api/collection-body.js';
import { parseEdgeBody, parseTraverseBody } from '../../../query/api/graph-body.js';
import { parseDeleteBody, parseRetrieveBody, parseScrollBody, parseUpsertBody } from '../../../query/api/points-body.js';
import { parseBatchSearchBody, parseSearchBody } from '../../../query/api/search-body.js';
import { parseUniversalQuery } from '../../../query/api/universal-body.js';
import { parseImportMode } from '../../../query/api/transfer.js';
import { DbError } from '../../../storage/errors.js';

/** The 400's message for a body, or a failed assertion when it is accepted. */
function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (err) {
    expect(err).to.be.instanceOf(DbError);
    expect((err as DbError).code).to.equal(400);
    return (err as DbError).message;
  }
  expect.fail('the body was accepted');
}

describe('query/api: request bodies checked by their schemas', () => {
  it('says what a field must be and echoes the value, or that it is missing', () => {
    expect(refusal(() => parseTraverseBody({ start_id: 1, max_depth: 1000 }))).to.equal('max_depth must be an integer from 0 to 100, got 1000');
    expect(refusal(() => parseTraverseBody({ start_id: 1 }))).to.equal('max_depth is required: an integer from 0 to 100');
    expect(refusal(() => parseScrollBody({ limit: 'ten' }))).to.equal('limit must be an integer from 1 to 10000, got "ten"');
    expect(refusal(() => parseCollectionBody({ vectors: { size: 2, distance: 'L1' } }))).to.equal('vectors.distance must be one of Cosine, Euclid, Dot, Manhattan, got "L1"');
    expect(refusal(() => parseEdgeBody({ from_id: 1, to_id: 2, relation: '' }))).to.match(/^relation must be a non-empty string of at most 255 characters, such as "KNOWS", got ""$/);
    expect(refusal(() => parseImportMode(undefined))).to.equal('mode is required: one of create, replace, merge, as ?mode=create');
    expect(refusal(() => parseImportMode('append'))).to.equal('mode must be one of create, replace, merge, got "append"');
  });

  it('cuts a long refused value short', () => {
    const message = refusal(() => parseEdgeBody({ from_id: 1, to_id: 2, relation: 'x'.repeat(10_000) }));
    expect(message.length).to.be.below(200);
    expect(message).to.match(/got "x+\.\.\.$/);
  });

  it('refuses a field it does not handle by name, listing the ones it does', () => {
    expect(refusal(() => parseCollectionBody({ vectors: { size: 2, distance: 'Dot' }, hnsw_config: { m: 8, ef_construct: 16, inline: true } }))).to.equal(
      'unknown field "hnsw_config.inline": the fields of hnsw_config are m, ef_construct, m0, ml, full_scan_threshold, max_indexing_threads, payload_m, on_disk, inline_storage',
    );
    expect(refusal(() => parseRetrieveBody({ ids: [1], with_vectors: true, shard_key: 'a' }))).to.equal('unknown fields "with_vectors", "shard_key": the fields here are ids, with_payload, with_vector');
    expect(refusal(() => parseSearchBody({ vector: [1], params: { exact: true } }))).to.match(/^unknown field "params\.exact"/);
  });

  it('follows a refused union into the option that came closest', () => {
    expect(refusal(() => parseRetrieveBody({ ids: [1], with_payload: { include: 3 } }))).to.equal('with_payload.include must be an array of payload keys, got 3');
    expect(refusal(() => parseRetrieveBody({ ids: [1], with_payload: 'yes' }))).to.equal('with_payload must be a boolean, a list of keys, or {"include"|"exclude": [keys]}, got "yes"');
    expect(refusal(() => parseSearchBody({ vector: [1, 'a'] }))).to.equal('vector[1] must be a number, got "a"');
    expect(refusal(() => parseSearchBody({ vector: { name: 'text', vector: [1, 'a'] } }))).to.equal('vector.vector[1] must be a number, got "a"');
    expect(refusal(() => parseUniversalQuery({ query: { nearest: [] } }))).to.match(/^query\.nearest must be a vector \(array of numbers\) or the id of a point/);
    expect(refusal(() => parseUniversalQuery({ query: { relevance_feedback: {} } }))).to.equal('query.relevance_feedback is not a query we answer: send a vector or point id, or one of nearest, recommend, discover, context, fusion, rrf, formula, order_by, sample');
    expect(refusal(() => parseUniversalQuery({ query: { discover: {} } }))).to.match(/^query\.discover\.target is required: a vector/);
    expect(refusal(() => parseUniversalQuery({ query: [1], lookup_from: { collection: 'x', shard_key: 'a' } }))).to.match(/^unknown field "lookup_from\.shard_key"/);
  });

  it('names a part of an upserted point after the point once its id is good, and keeps the better messages of ids and filters', () => {
    expect(refusal(() => parseUpsertBody({ points: [{ id: 7, vector: [1, 'x'] }] }))).to.equal('point 7: vector[1] must be a number, got "x"');
    expect(refusal(() => parseUpsertBody({ points: [{ id: 7, vector: [1], payload: 3 }] }))).to.equal('point 7: payload must be a JSON object, got 3');
    expect(refusal(() => parseUpsertBody({ points: [{ id: -7, vector: [1] }] }))).to.match(/^points\[0\]\.id: invalid point id -7: ids are integers from 0 to/);
    expect(refusal(() => parseDeleteBody({ filter: { must: [{ key: 'a', range: { near: 1 } }] } }))).to.equal('filter.must[0].range.near is not a range bound (gt, gte, lt, lte)');
    expect(refusal(() => parseBatchSearchBody({ searches: [{ vector: [1], filter: { must: 'x' } }] }))).to.match(/^searches\[0\]\.filter\.must must be an object/);
  });

  it('refuses two values for one setting instead of ignoring one', () => {
    expect(refusal(() => parseDeleteBody({ points: [1], filter: { must: [] } }))).to.equal('send points (an array of ids) or filter, not both');
    expect(refusal(() => parseSearchBody({ vector: [1], ef: 10, params: { hnsw_ef: 20 } }))).to.match(/ef, params\.ef and params\.hnsw_ef name the same setting/);
    expect(parseSearchBody({ vector: [1], ef: 10, params: { hnsw_ef: 10 } }).ef).to.equal(10);
  });

  it('refuses a body nested deeper than it can check, without overflowing the stack', () => {
    let filter: object = { key: 'a', match: { value: 1 } };
    for (let i = 0; i < 100_000; i++) filter = { must: [filter] };
    expect(refusal(() => parseDeleteBody({ filter }))).to.equal(`request body is nested more than ${MAX_BODY_NESTING} levels deep`);
    let deepValue: unknown = 1;
    for (let i = 0; i < 100_000; i++) deepValue = [deepValue];
    expect(refusal(() => parseCollectionBody({ vectors: { size: 2, distance: 'Dot' }, hnsw_config: deepValue }))).to.match(/nested more than 256 levels/);
    let shallow: object = { key: 'a', match: { value: 1 } };
    for (let i = 0; i < 100; i++) shallow = { must: [shallow] };
    expect(parseDeleteBody({ filter: shallow })).to.have.property('filter');
  });

  it('answers the typed request with the defaults', () => {
    const search = parseSearchBody({ vector: new Float32Array([1, 2]) });
    expect(Array.from(search.vector)).to.deep.equal([1, 2]);
    expect(search).to.include({ limit: 10, offset: 0, ef: 100, scoreThreshold: null, withPayload: true, withVector: false, filter: null });
    expect(parseCollectionBody({ vectors: { size: 3, distance: 'cosine' } })).to.deep.include({ size: 3, distance: 'Cosine', m: 16, m0: 32, efConstruct: 200 });
    expect(parseRetrieveBody({ ids: [2], with_payload: ['a'] })).to.deep.equal({ ids: [2], withPayload: { include: [[{ key: 'a' }]] }, withVector: false });
    expect(parseUpsertBody({ batch: { ids: [4], vectors: [[1, 2]], payloads: [null] } })).to.deep.equal([{ id: 4, vector: new Float32Array([1, 2]), payload: {}, labels: [] }]);
  });
});
