import { oneofInit, type MessageCodec } from './proto-json.js';

/** qdrant.FacetValue from a REST facet hit's value: a string, an integer or a boolean. */
export const facetValueCodec: MessageCodec = {
  fromRest(desc, json) {
    if (typeof json === 'string') return oneofInit(desc, 'string_value', json);
    if (typeof json === 'boolean') return oneofInit(desc, 'bool_value', json);
    if (typeof json === 'number') return oneofInit(desc, 'integer_value', BigInt(json));
    return undefined;
  },
};

/** qdrant.GroupId from a REST group's id: a string, or an integer (unsigned_value when not negative, as Qdrant answers it). */
export const groupIdCodec: MessageCodec = {
  fromRest(desc, json) {
    if (typeof json === 'string') return oneofInit(desc, 'string_value', json);
    if (typeof json === 'number') return json >= 0 ? oneofInit(desc, 'unsigned_value', BigInt(json)) : oneofInit(desc, 'integer_value', BigInt(json));
    return undefined;
  },
};
