import type { DescEnum } from '@bufbuild/protobuf';

/** Enums whose REST spelling is the proto value's name as it is (Qdrant's REST Distance: "Cosine", "Euclid"). */
const KEPT_AS_NAMED = new Set(['qdrant.Distance']);
/** Prefixes the proto values carry that their REST spellings do not (FieldTypeKeyword is "keyword"). */
const PREFIXES: Record<string, string> = { 'qdrant.FieldType': 'FieldType' };

/** CamelCase to snake_case, an all-capitals name to lower case: AverageVector → average_vector, RRF → rrf. */
function snake(name: string): string {
  if (/^[A-Z0-9]+$/.test(name)) return name.toLowerCase();
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** The REST spelling of an enum value: Qdrant's REST enums are its proto names in snake_case. */
export function restEnumName(desc: DescEnum, name: string): string {
  if (KEPT_AS_NAMED.has(desc.typeName)) return name;
  const prefix = PREFIXES[desc.typeName];
  return snake(prefix && name.startsWith(prefix) ? name.slice(prefix.length) : name);
}

/** The value of an enum named by its REST spelling; undefined when it names none. */
export function enumNumberOfRest(desc: DescEnum, text: string): number | undefined {
  return desc.values.find((v) => restEnumName(desc, v.name) === text || v.name === text)?.number;
}
