import { isFieldSet } from '@bufbuild/protobuf';
import { oneofMember, type MessageCodec } from './proto-json.js';
import { invalidArgument } from './status.js';

/**
 * qdrant.Condition as a REST condition: a field condition or a nested filter stands as itself,
 * the others under their name ({is_empty: {key}}, {has_id: [ids]}, {has_vector: name}, …).
 */
export const conditionCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'condition_one_of');
    if (!member) throw invalidArgument(`${where}: a condition needs one of field, is_empty, has_id, filter, is_null, nested, has_vector`);
    const { field, value } = member;
    const converted = walk.fieldToRest(field, value, `${where}.${field.name}`) as Record<string, unknown>;
    switch (field.name) {
      case 'field':
      case 'filter':
        return converted;
      case 'has_id':
        return { has_id: converted.has_id ?? [] };
      case 'has_vector':
        return { has_vector: converted.has_vector ?? '' };
      default:
        return { [field.name]: converted };
    }
  },
};

/** What each member of qdrant.Match is called in a REST match. */
const MATCH_KEYS: Record<string, string> = {
  keyword: 'value',
  integer: 'value',
  boolean: 'value',
  text: 'text',
  keywords: 'any',
  integers: 'any',
  except_integers: 'except',
  except_keywords: 'except',
  phrase: 'phrase',
  text_any: 'text_any',
};

/** qdrant.Match as a REST match: {value}, {text}, {any: [...]}, {except: [...]}, {phrase}, {text_any}. */
export const matchCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'match_value');
    if (!member) throw invalidArgument(`${where}: a match needs one of ${Object.keys(MATCH_KEYS).join(', ')}`);
    const key = MATCH_KEYS[member.field.name];
    if (!key) throw invalidArgument(`${where}.${member.field.name} is not a match we handle`);
    const converted = walk.fieldToRest(member.field, member.value, `${where}.${member.field.name}`);
    // RepeatedStrings {strings} and RepeatedIntegers {integers} are plain arrays in REST.
    const list = converted !== null && typeof converted === 'object' && !Array.isArray(converted) ? Object.values(converted)[0] ?? [] : converted;
    return { [key]: list };
  },
};

/** FieldCondition's flags that REST spells as conditions of their own. */
const FLAGS = ['is_empty', 'is_null'] as const;

/**
 * qdrant.FieldCondition as a REST field condition: its fields under their names, but a
 * datetime_range is REST's `range` (which takes RFC 3339 bounds), and the is_empty / is_null
 * flags are REST's {is_empty: {key}} / {is_null: {key}} conditions (false: under must_not).
 */
export const fieldConditionCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const out: Record<string, unknown> = {};
    for (const field of desc.fields) {
      if (!isFieldSet(msg as never, field)) continue;
      const name = field.name === 'datetime_range' ? 'range' : field.name;
      if (name in out) throw invalidArgument(`${where}: range and datetime_range are one condition: send one`);
      out[name] = walk.fieldToRest(field, msg[field.localName], `${where}.${field.name}`);
    }
    const flag = FLAGS.find((f) => f in out);
    if (flag === undefined) return out;
    const others = Object.keys(out).filter((k) => k !== 'key' && k !== flag);
    if (others.length > 0) throw invalidArgument(`${where}: ${flag} is a condition of its own: send ${others.join(', ')} in another condition`);
    const condition = { [flag]: { key: out.key } };
    return out[flag] === true ? condition : { must_not: [condition] };
  },
};
