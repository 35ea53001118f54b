import type { DescMessage } from '@bufbuild/protobuf';
import { oneofInit, oneofMember, type MessageCodec, type Msg, type Walker } from './proto-json.js';
import { invalidArgument } from './status.js';
import { fieldOf } from './value-codecs.js';

const INFERENCE = new Set(['document', 'image', 'object']);

function refuseInference(name: string, where: string): never {
  throw invalidArgument(`${where}: ${name} needs server-side inference, which is not served: send the vector itself`);
}

/** The deprecated spellings of qdrant.Vector: `data` alone (dense), with `indices` (sparse) or with `vectors_count` (multi-dense). */
function deprecatedVector(desc: DescMessage, msg: Msg, walk: Walker, where: string): unknown {
  const data = walk.fieldToRest(fieldOf(desc, 'data'), msg.data, where) as number[];
  const indices = msg.indices as { data: number[] } | undefined;
  if (indices) return { indices: indices.data, values: data };
  const count = msg.vectorsCount as number | undefined;
  if (count !== undefined) {
    if (count <= 0 || data.length % count !== 0) throw invalidArgument(`${where}: ${data.length} numbers do not divide into vectors_count ${count} vectors`);
    const dim = data.length / count;
    return Array.from({ length: count }, (_, i) => data.slice(i * dim, (i + 1) * dim));
  }
  return data;
}

/** qdrant.Vector (a point's vector, an example): its dense, sparse or multi-dense member, or the deprecated `data` form. */
export const vectorCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'vector');
    if (!member) return deprecatedVector(desc, msg, walk, where);
    if (INFERENCE.has(member.field.name)) refuseInference(member.field.name, where);
    return walk.fieldToRest(member.field, member.value, where);
  },
};

/** qdrant.VectorInput (a query): a point id, or a dense, sparse or multi-dense vector. */
export const vectorInputCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'variant');
    if (!member) throw invalidArgument(`${where}: a vector input needs id, dense, sparse or multi_dense`);
    if (INFERENCE.has(member.field.name)) refuseInference(member.field.name, where);
    return walk.fieldToRest(member.field, member.value, where);
  },
};

/** qdrant.DenseVector: its numbers. */
export const denseVectorCodec: MessageCodec = {
  toRest: (desc, msg, walk, where) => walk.fieldToRest(fieldOf(desc, 'data'), msg.data, where),
};

/** qdrant.MultiDenseVector: a list of dense vectors' numbers. */
export const multiDenseVectorCodec: MessageCodec = {
  toRest: (desc, msg, walk, where) => walk.fieldToRest(fieldOf(desc, 'vectors'), msg.vectors, where),
};

/** qdrant.NamedVectors: {name: vector}. */
export const namedVectorsCodec: MessageCodec = {
  toRest: (desc, msg, walk, where) => walk.fieldToRest(fieldOf(desc, 'vectors'), msg.vectors, where),
};

const isSparse = (json: unknown): json is { indices: number[]; values: number[] } =>
  typeof json === 'object' && json !== null && Array.isArray((json as { indices?: unknown }).indices) && Array.isArray((json as { values?: unknown }).values);

/**
 * qdrant.VectorOutput from a REST vector: the dense, sparse or multi-dense member, and the
 * deprecated `data` (with `indices` or `vectors_count`) that clients older than Qdrant 1.13 read.
 */
export const vectorOutputCodec: MessageCodec = {
  fromRest(desc, json) {
    if (isSparse(json)) return { data: json.values, indices: { data: json.indices }, ...oneofInit(desc, 'sparse', { values: json.values, indices: json.indices }) };
    if (!Array.isArray(json)) return undefined;
    if (json.length > 0 && Array.isArray(json[0])) {
      const rows = json as number[][];
      return { data: rows.flat(), vectorsCount: rows.length, ...oneofInit(desc, 'multi_dense', { vectors: rows.map((data) => ({ data })) }) };
    }
    return { data: json, ...oneofInit(desc, 'dense', { data: json }) };
  },
};

/** qdrant.VectorsOutput from a REST point's `vector`: one unnamed vector, or {name: vector}. */
export const vectorsOutputCodec: MessageCodec = {
  fromRest(desc: DescMessage, json: unknown, walk: Walker) {
    const single = fieldOf(desc, 'vector');
    if (Array.isArray(json) || isSparse(json)) return oneofInit(desc, 'vector', walk.fromRest(single.message!, json));
    if (typeof json !== 'object' || json === null || Object.keys(json).length === 0) return undefined;
    const named = fieldOf(desc, 'vectors').message!;
    return oneofInit(desc, 'vectors', walk.fromRest(named, { vectors: json }));
  },
};
