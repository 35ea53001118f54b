import { expect } from 'chai';
import { create, type DescMessage } from '@bufbuild/protobuf';
import { gzipSync } from 'node:zlib';
import {
  ConditionSchema,
  FilterSchema,
  PointIdSchema,
  PointStructSchema,
  QueryPointsSchema,
  ScoredPointSchema,
  SearchPointsSchema,
  StructSchema,
  ValueSchema,
  VectorSchema,
  WithPayloadSelectorSchema,
} from '@qdrant/js-client-grpc';
import { protoJson } from '../../qdrant-grpc/codecs.js';
import { encodeGrpcMessage, frame, unframe } from '../../qdrant-grpc/framing.js';
import type { Msg } from '../../qdrant-grpc/proto-json.js';
import { GrpcError, GrpcStatus, grpcStatusOfHttp } from '../../qdrant-grpc/status.js';

const toRest = (desc: DescMessage, init: unknown): unknown => protoJson.toRest(desc, create(desc, init as never) as unknown as Msg, 'x');
/** REST JSON → message → REST JSON: what a value comes back as after a trip through the proto form. */
const roundTrip = (desc: DescMessage, json: unknown): unknown => toRest(desc, protoJson.fromRest(desc, json));

function refusal(f: () => unknown): GrpcError {
  try {
    f();
  } catch (err) {
    if (err instanceof GrpcError) return err;
    throw err;
  }
  throw new Error('expected a GrpcError');
}

describe('qdrant-grpc: proto ⇄ Qdrant REST JSON', () => {
  describe('point ids', () => {
    it('is a number for num and a string for uuid, both ways', () => {
      expect(toRest(PointIdSchema, { pointIdOptions: { case: 'num', value: 42n } })).to.equal(42);
      expect(toRest(PointIdSchema, { pointIdOptions: { case: 'uuid', value: '5c56c793-69f3-4fbf-87e6-c4bf54c28c26' } })).to.equal('5c56c793-69f3-4fbf-87e6-c4bf54c28c26');
      expect(protoJson.fromRest(PointIdSchema, 7)).to.deep.equal({ pointIdOptions: { case: 'num', value: 7n } });
      expect(protoJson.fromRest(PointIdSchema, 'abc')).to.deep.equal({ pointIdOptions: { case: 'uuid', value: 'abc' } });
    });

    it('refuses an id past 2^53-1 and an id with neither member, naming where', () => {
      const big = refusal(() => toRest(PointIdSchema, { pointIdOptions: { case: 'num', value: 2n ** 60n } }));
      expect(big.code).to.equal(GrpcStatus.INVALID_ARGUMENT);
      expect(big.message).to.match(/^x: 1152921504606846976 is out of range/);
      expect(refusal(() => toRest(PointIdSchema, {})).message).to.equal('x: a point id needs num or uuid');
    });
  });

  describe('payload values', () => {
    it('keeps nested objects, lists, null, integers, doubles, strings and booleans through a round trip', () => {
      const payload = { s: 'a', i: 12, d: 1.5, b: false, n: null, list: [1, 'two', [3]], obj: { deep: { x: -4 } } };
      expect(roundTrip(StructSchema, payload)).to.deep.equal(payload);
      expect(protoJson.fromRest(ValueSchema, 3)).to.deep.equal({ kind: { case: 'integerValue', value: 3n } });
      expect(protoJson.fromRest(ValueSchema, 3.25)).to.deep.equal({ kind: { case: 'doubleValue', value: 3.25 } });
    });

    it("reads a point's payload map and its vectors under REST's names", () => {
      const point = toRest(PointStructSchema, {
        id: { pointIdOptions: { case: 'num', value: 1n } },
        payload: { city: { kind: { case: 'stringValue', value: 'Berlin' } } },
        vectors: { vectorsOptions: { case: 'vector', value: { data: [1, 2] } } },
      });
      expect(point).to.deep.equal({ id: 1, payload: { city: 'Berlin' }, vector: [1, 2] });
    });
  });

  describe('vectors', () => {
    it('reads the newer dense, sparse and multi-dense members', () => {
      expect(toRest(VectorSchema, { vector: { case: 'dense', value: { data: [1, 2] } } })).to.deep.equal([1, 2]);
      expect(toRest(VectorSchema, { vector: { case: 'sparse', value: { indices: [3, 9], values: [0.5, 0.25] } } })).to.deep.equal({ indices: [3, 9], values: [0.5, 0.25] });
      expect(toRest(VectorSchema, { vector: { case: 'multiDense', value: { vectors: [{ data: [1, 2] }, { data: [3, 4] }] } } })).to.deep.equal([
        [1, 2],
        [3, 4],
      ]);
    });

    it('reads the deprecated data forms: alone dense, with indices sparse, with vectors_count multi-dense', () => {
      expect(toRest(VectorSchema, { data: [1, 2] })).to.deep.equal([1, 2]);
      expect(toRest(VectorSchema, { data: [0.5, 0.25], indices: { data: [3, 9] } })).to.deep.equal({ indices: [3, 9], values: [0.5, 0.25] });
      expect(toRest(VectorSchema, { data: [1, 2, 3, 4, 5, 6], vectorsCount: 2 })).to.deep.equal([
        [1, 2, 3],
        [4, 5, 6],
      ]);
      expect(refusal(() => toRest(VectorSchema, { data: [1, 2, 3], vectorsCount: 2 })).message).to.equal('x: 3 numbers do not divide into vectors_count 2 vectors');
    });

    it('refuses NaN and infinities, which JSON, and so the REST port, cannot carry', () => {
      expect(refusal(() => toRest(VectorSchema, { vector: { case: 'dense', value: { data: [1, Number.NaN] } } })).message).to.equal('x[1]: NaN is not a finite number');
      expect(refusal(() => toRest(ValueSchema, { kind: { case: 'doubleValue', value: Number.POSITIVE_INFINITY } })).code).to.equal(GrpcStatus.INVALID_ARGUMENT);
    });

    it('refuses inference inputs by name', () => {
      const err = refusal(() => toRest(VectorSchema, { vector: { case: 'document', value: { text: 'hello', model: 'm' } } }));
      expect(err.code).to.equal(GrpcStatus.INVALID_ARGUMENT);
      expect(err.message).to.match(/^x: document needs server-side inference/);
    });

    it("answers a REST vector as VectorOutput's member and its deprecated fields", () => {
      const scored = protoJson.fromRest(ScoredPointSchema, { id: 'u', score: 0.5, vector: { a: [1, 2], s: { indices: [1], values: [0.5] } } }) as Record<string, any>;
      const named = scored.vectors.vectorsOptions.value.vectors;
      expect(named.a).to.deep.equal({ data: [1, 2], vector: { case: 'dense', value: { data: [1, 2] } } });
      expect(named.s).to.deep.equal({ data: [0.5], indices: { data: [1] }, vector: { case: 'sparse', value: { values: [0.5], indices: [1] } } });
      expect(scored.id).to.deep.equal({ pointIdOptions: { case: 'uuid', value: 'u' } });
    });
  });

  describe('filters', () => {
    it("spells each condition and match as Qdrant's REST filter does", () => {
      const filter = toRest(FilterSchema, {
        must: [
          { conditionOneOf: { case: 'field', value: { key: 'city', match: { matchValue: { case: 'keyword', value: 'Berlin' } } } } },
          { conditionOneOf: { case: 'field', value: { key: 'n', range: { gte: 1, lt: 5 } } } },
          { conditionOneOf: { case: 'field', value: { key: 'tag', match: { matchValue: { case: 'keywords', value: { strings: ['a', 'b'] } } } } } },
          { conditionOneOf: { case: 'field', value: { key: 'k', match: { matchValue: { case: 'exceptIntegers', value: { integers: [1n] } } } } } },
        ],
        should: [
          { conditionOneOf: { case: 'hasId', value: { hasId: [{ pointIdOptions: { case: 'num', value: 3n } }] } } },
          { conditionOneOf: { case: 'isEmpty', value: { key: 'e' } } },
          { conditionOneOf: { case: 'filter', value: { mustNot: [{ conditionOneOf: { case: 'isNull', value: { key: 'z' } } }] } } },
          { conditionOneOf: { case: 'hasVector', value: { hasVector: 'img' } } },
        ],
      });
      expect(filter).to.deep.equal({
        must: [{ key: 'city', match: { value: 'Berlin' } }, { key: 'n', range: { gte: 1, lt: 5 } }, { key: 'tag', match: { any: ['a', 'b'] } }, { key: 'k', match: { except: [1] } }],
        should: [{ has_id: [3] }, { is_empty: { key: 'e' } }, { must_not: [{ is_null: { key: 'z' } }] }, { has_vector: 'img' }],
      });
    });

    it("takes datetime_range as REST's range, and the is_empty / is_null flags as conditions of their own", () => {
      const filter = toRest(FilterSchema, {
        must: [
          { conditionOneOf: { case: 'field', value: { key: 't', datetimeRange: { gte: { seconds: 1704153600n, nanos: 0 } } } } },
          { conditionOneOf: { case: 'field', value: { key: 'e', isEmpty: true } } },
          { conditionOneOf: { case: 'field', value: { key: 'z', isNull: false } } },
        ],
      });
      expect(filter).to.deep.equal({ must: [{ key: 't', range: { gte: '2024-01-02T00:00:00.000Z' } }, { is_empty: { key: 'e' } }, { must_not: [{ is_null: { key: 'z' } }] }] });
      const both = refusal(() => toRest(ConditionSchema, { conditionOneOf: { case: 'field', value: { key: 'e', isEmpty: true, range: { gte: 1 } } } }));
      expect(both.message).to.equal('x.field: is_empty is a condition of its own: send range in another condition');
    });

    it('refuses an empty condition', () => {
      expect(refusal(() => toRest(ConditionSchema, {})).message).to.match(/^x: a condition needs one of field, is_empty/);
    });
  });

  describe('requests', () => {
    it('reads selectors, enums and nested queries under their REST names', () => {
      expect(toRest(WithPayloadSelectorSchema, { selectorOptions: { case: 'include', value: { fields: ['a'] } } })).to.deep.equal(['a']);
      expect(toRest(WithPayloadSelectorSchema, { selectorOptions: { case: 'exclude', value: { fields: ['b'] } } })).to.deep.equal({ exclude: ['b'] });
      const query = toRest(QueryPointsSchema, {
        collectionName: 'c',
        prefetch: [{ query: { variant: { case: 'nearest', value: { variant: { case: 'dense', value: { data: [1, 0] } } } } }, limit: 5n }],
        query: { variant: { case: 'fusion', value: 0 } },
        limit: 3n,
      });
      expect(query).to.deep.equal({ collection_name: 'c', prefetch: [{ query: { nearest: [1, 0] }, limit: 5 }], query: { fusion: 'rrf' }, limit: 3 });
      expect(toRest(SearchPointsSchema, { collectionName: 'c', vector: [1], limit: 2n, vectorName: 'v' })).to.deep.equal({ collection_name: 'c', vector: [1], limit: 2, vector_name: 'v' });
      const lookup = toRest(QueryPointsSchema, { collectionName: 'c', query: { variant: { case: 'recommend', value: { positive: [{ variant: { case: 'id', value: { pointIdOptions: { case: 'num', value: 1n } } } }] } } }, lookupFrom: { collectionName: 'other', vectorName: 'img' } });
      expect(lookup).to.deep.equal({ collection_name: 'c', query: { recommend: { positive: [1] } }, lookup_from: { collection: 'other', vector: 'img' } });
    });

    it('refuses a formula query, whose proto form is not the REST one', () => {
      const err = refusal(() => toRest(QueryPointsSchema, { collectionName: 'c', query: { variant: { case: 'formula', value: {} } } }));
      expect(err.message).to.equal('x.query.formula: formula queries are not served over gRPC: send them to the REST API');
    });
  });

  describe('framing', () => {
    it('takes one message, plain or gzip, and frames the answer with its length', () => {
      const message = Buffer.from([8, 150, 1]);
      expect(unframe(frame(message), undefined)).to.deep.equal(message);
      const gz = gzipSync(message);
      const compressed = Buffer.concat([Buffer.from([1, 0, 0, 0, gz.length]), gz]);
      expect(unframe(compressed, 'gzip')).to.deep.equal(message);
      expect(frame(message)).to.deep.equal(Buffer.from([0, 0, 0, 0, 3, 8, 150, 1]));
    });

    it('refuses a body that is not exactly one message, and a compression not named', () => {
      expect(refusal(() => unframe(Buffer.from([0, 0, 0, 0, 5, 1]), undefined)).message).to.match(/1 bytes where its prefix says 5/);
      expect(refusal(() => unframe(Buffer.from([0, 0]), undefined)).code).to.equal(GrpcStatus.INVALID_ARGUMENT);
      expect(refusal(() => unframe(Buffer.from([1, 0, 0, 0, 1, 1]), 'snappy')).code).to.equal(GrpcStatus.UNIMPLEMENTED);
    });

    it("maps the REST port's statuses to Qdrant's gRPC codes", () => {
      const codes = [400, 401, 403, 404, 409, 413, 429, 500, 503, 504].map(grpcStatusOfHttp);
      const { INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, ALREADY_EXISTS, RESOURCE_EXHAUSTED, INTERNAL, UNAVAILABLE, DEADLINE_EXCEEDED } = GrpcStatus;
      expect(codes).to.deep.equal([INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, ALREADY_EXISTS, INVALID_ARGUMENT, RESOURCE_EXHAUSTED, INTERNAL, UNAVAILABLE, DEADLINE_EXCEEDED]);
    });

    it('percent-encodes grpc-message outside printable ASCII', () => {
      expect(encodeGrpcMessage('collection "a" 100% — ok')).to.equal('collection "a" 100%25 %E2%80%94 ok');
    });
  });
});
