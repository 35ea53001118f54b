import * as z from 'zod';
import { parseFilter } from '../../filter/parse-filter.js';
import { explainedBy } from './explainers.js';
import { pointIdList } from './fields.js';

/** The payload filter's shape (Qdrant's); query/filter/parse-filter.ts reads it and names a refused part precisely. */

const scalar = z.union([z.string(), z.number(), z.boolean()]);
const key = z.string().min(1).meta({ description: 'a payload key, dots for nested keys ("a.b", "tags[]")' });
const bound = z.union([z.number(), z.string()]).nullish().meta({ description: 'a number, or an RFC 3339 date-time' });
const countBound = z.int().min(0).nullish();

const match = z.union([
  z.strictObject({ value: scalar }),
  z.strictObject({ any: z.array(scalar) }),
  z.strictObject({ except: z.array(scalar) }),
  z.strictObject({ text: z.string().min(1).meta({ description: 'words that must all appear in the text (full-text match)' }) }),
]);

const range = z.strictObject({ gt: bound, gte: bound, lt: bound, lte: bound }).meta({ description: 'an object with at least one of gt, gte, lt, lte' });

const keyOnly = z.strictObject({ key });

const condition: z.ZodType = z
  .union([
    z.strictObject({ key, match }),
    z.strictObject({ key, range }),
    z.strictObject({ key, values_count: z.strictObject({ gt: countBound, gte: countBound, lt: countBound, lte: countBound }) }),
    z.strictObject({ nested: z.strictObject({ key, filter: z.lazy(() => filter) }) }),
    z.strictObject({ has_id: pointIdList() }),
    z.strictObject({ has_vector: z.string().meta({ description: 'the name of a vector the point must have ("" the unnamed one)' }) }),
    z.strictObject({ is_empty: keyOnly }),
    z.strictObject({ is_null: keyOnly }),
    z.lazy(() => filter),
  ])
  .meta({ id: 'Condition', description: 'a condition: {key, match}, {key, range}, {key, values_count}, {has_id}, {has_vector}, {is_empty}, {is_null}, {nested: {key, filter}} or a nested filter' });

// Arrays first: clients send lists, and a list tried against the conditions first fails each of them at a cost.
const clause = () => z.union([z.array(condition), condition]).nullish();

export const filter: z.ZodType = explainedBy(
  z
    .strictObject({
      must: clause(),
      should: clause(),
      must_not: clause(),
      min_should: z.strictObject({ conditions: z.array(condition), min_count: z.int().min(0) }).nullish(),
    })
    .meta({ id: 'Filter', description: 'a filter: an object with must (all hold), should (at least one holds), must_not (none holds) or min_should ({conditions, min_count})' }),
  (where, value) => {
    parseFilter(value, where);
    return undefined;
  },
);
