import { isFieldSet, ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { enumNumberOfRest, restEnumName } from './enum-names.js';
import { invalidArgument } from './status.js';

/** A decoded message as @bufbuild/protobuf holds it: fields by localName, a oneof as {case, value}. */
export type Msg = Record<string, unknown>;

/** The two directions of the walk, handed to the codecs so that they can convert what they hold. */
export interface Walker {
  /** A message as Qdrant's REST API spells it (`where` names it in error messages). */
  toRest(desc: DescMessage, msg: Msg, where: string): unknown;
  /** A field's value (one member of a oneof, say) as Qdrant's REST API spells it. */
  fieldToRest(field: DescField, value: unknown, where: string): unknown;
  /** A REST value as the init shape of a message (for create()). */
  fromRest(desc: DescMessage, json: unknown): unknown;
}

/** A message whose REST shape is not its fields under their proto names (a point id, a payload value, a vector). */
export interface MessageCodec {
  toRest?(desc: DescMessage, msg: Msg, walk: Walker, where: string): unknown;
  fromRest?(desc: DescMessage, json: unknown, walk: Walker): unknown;
}

/** The set member of a oneof, by the oneof's proto name; undefined when none is. */
export function oneofMember(desc: DescMessage, msg: Msg, oneofName: string): { field: DescField; value: unknown } | undefined {
  const oneof = desc.oneofs.find((o) => o.name === oneofName);
  if (!oneof) return undefined;
  const held = msg[oneof.localName] as { case?: string; value?: unknown } | undefined;
  const field = oneof.fields.find((f) => f.localName === held?.case);
  return field ? { field, value: held!.value } : undefined;
}

/** The init shape of a oneof set to one member, by the member's proto name. */
export function oneofInit(desc: DescMessage, fieldName: string, value: unknown): Record<string, unknown> {
  const field = desc.fields.find((f) => f.name === fieldName);
  if (!field?.oneof) throw new Error(`${desc.typeName}.${fieldName} is no oneof member`);
  return { [field.oneof.localName]: { case: field.localName, value } };
}

const WIDE_INTEGERS = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.FIXED64, ScalarType.SFIXED64, ScalarType.SINT64]);

/** A 64-bit integer as a JSON number: refused past 2^53, where a number would not hold it exactly. */
export function safeNumber(value: bigint, where: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) throw invalidArgument(`${where}: ${value} is out of range (at most 2^53-1)`);
  return Number(value);
}

function scalarToRest(type: ScalarType, value: unknown, where: string): unknown {
  if (typeof value === 'bigint') return safeNumber(value, where);
  // JSON has no NaN or infinity: the REST port never sees them, so neither does this one.
  if (typeof value === 'number' && !Number.isFinite(value)) throw invalidArgument(`${where}: ${value} is not a finite number`);
  if (type === ScalarType.BYTES) throw invalidArgument(`${where}: bytes fields are not served`);
  return value;
}

function scalarFromRest(type: ScalarType, value: unknown): unknown {
  if (WIDE_INTEGERS.has(type) && typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  return value;
}

/**
 * Converts between protobuf messages and Qdrant's REST JSON: by default a message is an object of
 * its set fields under their proto names (which are Qdrant's REST names), an enum its REST
 * spelling, a 64-bit integer a number; the messages whose REST shape differs have a codec, and
 * `aliases` renames the few fields whose REST name differs (a point's `vectors` is `vector`).
 */
export class ProtoJson implements Walker {
  constructor(
    private readonly codecs: ReadonlyMap<string, MessageCodec>,
    private readonly aliases: Readonly<Record<string, Readonly<Record<string, string>>>>,
  ) {}

  toRest(desc: DescMessage, msg: Msg, where: string): unknown {
    const codec = this.codecs.get(desc.typeName);
    if (codec?.toRest) return codec.toRest(desc, msg, this, where);
    const out: Record<string, unknown> = {};
    const renamed = this.aliases[desc.typeName] ?? {};
    for (const field of desc.fields) {
      if (!isFieldSet(msg as never, field)) continue;
      const value = field.oneof ? (msg[field.oneof.localName] as { value: unknown }).value : msg[field.localName];
      const key = renamed[field.name] ?? field.name;
      const converted = this.fieldToRest(field, value, where === '' ? key : `${where}.${key}`);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  }

  fieldToRest(field: DescField, value: unknown, where: string): unknown {
    switch (field.fieldKind) {
      case 'scalar':
        return scalarToRest(field.scalar, value, where);
      case 'enum':
        return this.enumToRest(field, value as number);
      case 'message':
        return this.toRest(field.message, value as Msg, where);
      case 'list':
        return (value as unknown[]).map((item, i) => {
          const at = `${where}[${i}]`;
          if (field.listKind === 'message') return this.toRest(field.message, item as Msg, at);
          if (field.listKind === 'enum') return this.enumToRest(field, item as number);
          return scalarToRest(field.scalar, item, at);
        });
      case 'map': {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          const at = `${where}.${k}`;
          if (field.mapKind === 'message') out[k] = this.toRest(field.message, v as Msg, at);
          else if (field.mapKind === 'enum') out[k] = this.enumToRest(field, v as number);
          else out[k] = scalarToRest(field.scalar, v, at);
        }
        return out;
      }
    }
  }

  private enumToRest(field: DescField, n: number): string | number {
    const desc = field.enum!;
    const value = desc.values.find((v) => v.number === n);
    return value ? restEnumName(desc, value.name) : n;
  }

  fromRest(desc: DescMessage, json: unknown): unknown {
    const codec = this.codecs.get(desc.typeName);
    if (codec?.fromRest) return codec.fromRest(desc, json, this);
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return undefined;
    const given = json as Record<string, unknown>;
    const renamed = this.aliases[desc.typeName] ?? {};
    const init: Record<string, unknown> = {};
    for (const field of desc.fields) {
      const raw = given[renamed[field.name] ?? field.name];
      if (raw === undefined || raw === null) continue;
      const value = this.fieldFromRest(field, raw);
      if (value === undefined) continue;
      if (field.oneof) init[field.oneof.localName] = { case: field.localName, value };
      else init[field.localName] = value;
    }
    return init;
  }

  private fieldFromRest(field: DescField, raw: unknown): unknown {
    switch (field.fieldKind) {
      case 'scalar':
        return scalarFromRest(field.scalar, raw);
      case 'enum':
        return typeof raw === 'string' ? enumNumberOfRest(field.enum, raw) : raw;
      case 'message':
        return this.fromRest(field.message, raw);
      case 'list':
        if (!Array.isArray(raw)) return undefined;
        return raw.map((item) => {
          if (field.listKind === 'message') return this.fromRest(field.message, item);
          if (field.listKind === 'enum') return typeof item === 'string' ? enumNumberOfRest(field.enum, item) : item;
          return scalarFromRest(field.scalar, item);
        });
      case 'map': {
        if (typeof raw !== 'object' || Array.isArray(raw)) return undefined;
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
          if (field.mapKind === 'message') out[k] = this.fromRest(field.message, v);
          else if (field.mapKind === 'enum') out[k] = typeof v === 'string' ? enumNumberOfRest(field.enum, v) : v;
          else out[k] = scalarFromRest(field.scalar, v);
        }
        return out;
      }
    }
  }
}
