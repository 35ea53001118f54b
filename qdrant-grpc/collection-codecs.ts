import { oneofInit, oneofMember, type MessageCodec } from './proto-json.js';
import { fieldOf } from './value-codecs.js';

/** qdrant.VectorsConfig: REST's one unnamed {size, distance…} or {name: params}. */
export const vectorsConfigCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'config');
    if (!member) return undefined;
    const converted = walk.fieldToRest(member.field, member.value, where) as Record<string, unknown>;
    return member.field.name === 'params_map' ? converted.map : converted;
  },
  fromRest(desc, json, walk) {
    if (typeof json !== 'object' || json === null) return undefined;
    if (typeof (json as { size?: unknown }).size === 'number') return oneofInit(desc, 'params', walk.fromRest(fieldOf(desc, 'params').message!, json));
    return oneofInit(desc, 'params_map', walk.fromRest(fieldOf(desc, 'params_map').message!, { map: json }));
  },
};

/** qdrant.VectorsConfigDiff: REST's {name: diff}, where the unnamed vector is named "". */
export const vectorsConfigDiffCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'config');
    if (!member) return undefined;
    const converted = walk.fieldToRest(member.field, member.value, where) as Record<string, unknown>;
    return member.field.name === 'params_map' ? converted.map : { '': converted };
  },
};

/** qdrant.SparseVectorConfig: REST's {name: params}. */
export const sparseVectorConfigCodec: MessageCodec = {
  toRest: (desc, msg, walk, where) => walk.fieldToRest(fieldOf(desc, 'map'), msg.map, where),
  fromRest(desc, json, walk) {
    if (typeof json !== 'object' || json === null) return undefined;
    const params = fieldOf(desc, 'map').message!;
    return { map: Object.fromEntries(Object.entries(json).map(([name, p]) => [name, walk.fromRest(params, p)])) };
  },
};

/** qdrant.OptimizerStatus from REST's "ok" or {error}. */
export const optimizerStatusCodec: MessageCodec = {
  fromRest(_desc, json) {
    if (json === 'ok') return { ok: true };
    const error = (json as { error?: unknown } | null)?.error;
    return { ok: false, error: typeof error === 'string' ? error : String(json) };
  },
};

/**
 * qdrant.PayloadIndexParams: REST's field_schema object {type, …params}, whose type names the
 * member (keyword_index_params for "keyword").
 */
export const payloadIndexParamsCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'index_params');
    if (!member) return undefined;
    const params = walk.fieldToRest(member.field, member.value, where) as Record<string, unknown>;
    return { type: member.field.name.replace(/_index_params$/, ''), ...params };
  },
  fromRest(desc, json, walk) {
    const type = (json as { type?: unknown } | null)?.type;
    const field = desc.fields.find((f) => f.name === `${String(type)}_index_params`);
    if (!field) return undefined;
    return oneofInit(desc, field.name, walk.fromRest(field.message!, json));
  },
};

/** qdrant.MaxOptimizationThreads: REST's number of threads, or "auto". */
export const maxOptimizationThreadsCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'variant');
    return member ? walk.fieldToRest(member.field, member.value, where) : undefined;
  },
  fromRest(desc, json) {
    if (typeof json === 'number') return oneofInit(desc, 'value', BigInt(json));
    if (json === 'auto') return oneofInit(desc, 'setting', 0);
    return undefined;
  },
};
