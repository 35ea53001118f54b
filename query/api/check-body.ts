import * as z from 'zod';
import { badRequest } from '../../storage/errors.js';
import { nestingProblem } from './body-nesting.js';
import { explainerOf, quote, type Explainer } from './schemas/explainers.js';

type Path = readonly PropertyKey[];

/** Names the field at `path` in a message; `points[0].vector[2]` by default. */
export type FieldNamer = (path: Path) => string;

export const fieldName: FieldNamer = (path) =>
  path.reduce<string>((out, step) => (typeof step === 'number' ? `${out}[${step}]` : out ? `${out}.${String(step)}` : String(step)), '');

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
}

const defOf = (schema: z.ZodType): ZodDef => schema._zod.def as unknown as ZodDef;
const descriptionOf = (schema: z.ZodType): string | undefined => z.globalRegistry.get(schema)?.description;

/** The schemas one value passes through: wrappers (optional, nullable, lazy…) down to the one that checks it, with the union branch taken. */
function chainOf(schema: z.ZodType, branches: number[]): z.ZodType[] {
  const chain = [schema];
  for (;;) {
    const def = defOf(chain[chain.length - 1]!);
    const next =
      def.type === 'optional' || def.type === 'nullable' || def.type === 'default' || def.type === 'readonly' ? def.innerType
      : def.type === 'pipe' ? def.in
      : def.type === 'lazy' ? def.getter!()
      : def.type === 'union' && branches.length > 0 ? def.options![branches.shift()!]
      : undefined;
    if (!next) return chain;
    chain.push(next);
  }
}

function childOf(chain: z.ZodType[], step: PropertyKey): z.ZodType | undefined {
  const def = defOf(chain[chain.length - 1]!);
  if (def.type === 'object') return def.shape![String(step)];
  if (def.type === 'array') return def.element;
  if (def.type === 'record') return def.valueType;
  // A union zod settled without saying which option it took: the option that has this field.
  if (def.type === 'union') {
    for (const option of def.options!) {
      const child = childOf(chainOf(option, []), step);
      if (child) return child;
    }
  }
  return undefined;
}

const valueAt = (raw: unknown, step: PropertyKey): unknown =>
  raw !== null && typeof raw === 'object' && Object.hasOwn(raw, step) ? (raw as Record<PropertyKey, unknown>)[step] : undefined;

/** A schema's explainer; for a union no option of which came close, its options' explainers too. */
function explainersOf(schema: z.ZodType): Explainer[] {
  const def = defOf(schema);
  const options = def.type === 'union' ? def.options! : [];
  return [schema, ...options].map(explainerOf).filter((e): e is Explainer => e !== undefined);
}

interface Located {
  issue: z.core.$ZodIssue;
  path: Path;
  /** Which option each union on the way took, outermost first. */
  branches: number[];
}

/** Follows a refused union into the option that got furthest, so the message names the deepest part that is wrong. */
function locate(issue: z.core.$ZodIssue, base: Path = []): Located {
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union') return { issue, path, branches: [] };
  // The option that got furthest; of those equally far, the one with fewest problems (the text
  // option of {"type": "text", "tokenizer": "x"}, not the keyword one that also refuses its type).
  let best = -1;
  let depth = 0;
  issue.errors.forEach((errors, i) => {
    const reached = errors[0]?.path.length ?? 0;
    if (reached > depth || (reached === depth && best >= 0 && errors.length < issue.errors[best]!.length)) [best, depth] = [i, reached];
  });
  if (best < 0) return { issue, path, branches: [] };
  const inner = locate(issue.errors[best]![0]!, path);
  return { ...inner, branches: [best, ...inner.branches] };
}

/** The fields an object schema takes; for a union no option of which was taken, those of its object options. */
function knownFields(schema: z.ZodType): string[] {
  const def = defOf(schema);
  if (def.type === 'object') return Object.keys(def.shape ?? {});
  if (def.type !== 'union') return [];
  const fields = def.options!.flatMap((option) => {
    const chain = chainOf(option, []);
    return knownFields(chain[chain.length - 1]!);
  });
  return [...new Set(fields)];
}

interface Level {
  chain: z.ZodType[];
  path: Path;
  value: unknown;
}

function explain(schema: z.ZodType, issue: z.core.$ZodIssue, raw: unknown, name: FieldNamer): string {
  const { issue: found, path, branches } = locate(issue);
  const levels: Level[] = [{ chain: chainOf(schema, branches), path: [], value: raw }];
  for (let i = 0; i < path.length; i++) {
    const child = childOf(levels[i]!.chain, path[i]!);
    if (!child) break;
    levels.push({ chain: chainOf(child, branches), path: path.slice(0, i + 1), value: valueAt(levels[i]!.value, path[i]!) });
  }
  const target = levels[levels.length - 1]!;
  for (const level of levels) {
    if (level.value === undefined) continue;
    for (const s of level.chain) {
      for (const explainer of explainersOf(s)) {
        const message = explainer(name(level.path), level.value);
        if (message) return message;
      }
    }
  }
  if (found.code === 'unrecognized_keys') {
    const where = name(target.path);
    const known = knownFields(target.chain[target.chain.length - 1]!);
    const fields = found.keys.map((k) => `"${where ? `${where}.` : ''}${k}"`).join(', ');
    const unknown = `unknown field${found.keys.length > 1 ? 's' : ''} ${fields}`;
    return known.length > 0 ? `${unknown}: the fields ${where ? `of ${where} ` : 'here '}are ${known.join(', ')}` : unknown;
  }
  const described = [...levels].reverse().find((level) => level.chain.some((s) => descriptionOf(s)));
  if (!described) return `${name(path) || 'request body'}: ${found.message}`;
  const description = [...described.chain].reverse().map(descriptionOf).find(Boolean)!;
  const where = name(described.path) || 'request body';
  return described.value === undefined ? `${where} is required: ${description}` : `${where} must be ${description}, got ${quote(described.value)}`;
}

export { MAX_BODY_NESTING } from './body-nesting.js';

/**
 * Checks a request body against its schema and answers it typed, or throws a 400 naming the
 * first part that is wrong, what it must be (the schema's description), and the value sent.
 */
export function checkBody<S extends z.ZodType>(schema: S, raw: unknown, name: FieldNamer = fieldName): z.output<S> {
  const tooDeep = nestingProblem(raw);
  if (tooDeep) throw badRequest(tooDeep);
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw badRequest(explain(schema, result.error.issues[0]!, raw, name));
}
