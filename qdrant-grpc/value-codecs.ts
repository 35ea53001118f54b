import type { DescMessage } from '@bufbuild/protobuf';
import { oneofInit, oneofMember, safeNumber, type MessageCodec, type Msg, type Walker } from './proto-json.js';
import { invalidArgument } from './status.js';

/** qdrant.PointId: {num} is an integer id, {uuid} a UUID, as the REST API's number or string. */
export const pointIdCodec: MessageCodec = {
  toRest(desc, msg, _walk, where) {
    const member = oneofMember(desc, msg, 'point_id_options');
    if (!member) throw invalidArgument(`${where}: a point id needs num or uuid`);
    return typeof member.value === 'bigint' ? safeNumber(member.value, where) : member.value;
  },
  fromRest(desc, json) {
    if (typeof json === 'number') return oneofInit(desc, 'num', BigInt(json));
    if (typeof json === 'string') return oneofInit(desc, 'uuid', json);
    return undefined;
  },
};

/** qdrant.Value, a payload value: the JSON value it holds (an integer_value past 2^53 is refused, as JSON could not keep it). */
export const valueCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'kind');
    if (!member) return null;
    switch (member.field.name) {
      case 'null_value':
        return null;
      case 'integer_value':
        return safeNumber(member.value as bigint, where);
      default:
        return walk.fieldToRest(member.field, member.value, where);
    }
  },
  fromRest(desc, json, walk) {
    if (json === null || json === undefined) return oneofInit(desc, 'null_value', 0);
    if (typeof json === 'boolean') return oneofInit(desc, 'bool_value', json);
    if (typeof json === 'string') return oneofInit(desc, 'string_value', json);
    if (typeof json === 'number') return Number.isSafeInteger(json) ? oneofInit(desc, 'integer_value', BigInt(json)) : oneofInit(desc, 'double_value', json);
    const field = desc.fields.find((f) => f.name === (Array.isArray(json) ? 'list_value' : 'struct_value'))!;
    return oneofInit(desc, field.name, walk.fromRest(field.message!, json));
  },
};

/** qdrant.Struct: a JSON object of payload values. */
export const structCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    return walk.fieldToRest(fieldOf(desc, 'fields'), msg.fields, where);
  },
  fromRest(desc, json, walk) {
    const valueDesc = fieldOf(desc, 'fields').message!;
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(json as Record<string, unknown>)) fields[k] = walk.fromRest(valueDesc, v);
    return { fields };
  },
};

/** qdrant.ListValue: a JSON array of payload values. */
export const listValueCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    return walk.fieldToRest(fieldOf(desc, 'values'), msg.values, where);
  },
  fromRest(desc, json, walk) {
    const valueDesc = fieldOf(desc, 'values').message!;
    return { values: (json as unknown[]).map((v) => walk.fromRest(valueDesc, v)) };
  },
};

/** google.protobuf.Timestamp: an RFC 3339 date-time, as Qdrant's REST datetime ranges take it. */
export const timestampCodec: MessageCodec = {
  toRest(_desc, msg, _walk, where) {
    const ms = safeNumber(msg.seconds as bigint, where) * 1000 + Math.floor((msg.nanos as number) / 1e6);
    return new Date(ms).toISOString();
  },
  fromRest(_desc, json) {
    if (typeof json !== 'string') return undefined;
    // Qdrant's REST times (a snapshot's creation_time) are UTC without a zone.
    const ms = Date.parse(/(?:Z|[+-]\d\d:?\d\d)$/i.test(json) ? json : `${json}Z`);
    if (Number.isNaN(ms)) return undefined;
    return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 };
  },
};

export function fieldOf(desc: DescMessage, name: string) {
  const field = desc.fields.find((f) => f.name === name);
  if (!field) throw new Error(`${desc.typeName} has no field ${name}`);
  return field;
}

/** A message that is one oneof: its REST form is the set member's, as the member's own REST form. */
export function memberOnly(oneofName: string, whenUnset: () => unknown = () => undefined): MessageCodec {
  return {
    toRest(desc: DescMessage, msg: Msg, walk: Walker, where: string) {
      const member = oneofMember(desc, msg, oneofName);
      return member ? walk.fieldToRest(member.field, member.value, where) : whenUnset();
    },
  };
}

/** A message that wraps one field: its REST form is that field's. */
export function fieldOnly(name: string): MessageCodec {
  return {
    toRest(desc: DescMessage, msg: Msg, walk: Walker, where: string) {
      const field = fieldOf(desc, name);
      return walk.fieldToRest(field, msg[field.localName], where);
    },
    fromRest(desc: DescMessage, json: unknown, walk: Walker) {
      const field = fieldOf(desc, name);
      if (field.fieldKind === 'list' && field.listKind === 'message') return Array.isArray(json) ? { [field.localName]: json.map((j) => walk.fromRest(field.message, j)) } : undefined;
      return { [field.localName]: json };
    },
  };
}
