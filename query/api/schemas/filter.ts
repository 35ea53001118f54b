import * as z from 'zod';
import { parseFilter } from '../../filter/parse-filter.js';
import { explainedBy } from './explainers.js';
import { pointIdList } from './fields.js';

/** The payload filter's shape (Qdrant's); query/filter/parse-filter.ts reads it and names a refused part precisely. */

const scalar = z.union([z.string(), z.number(), z.boolean()]);
const key = z.string().min(1).meta({ description: 'a payload key, dots for nested keys ("a.b", "tags[]")' });
const bound = z.number().nullish();

const match = z.union([
  z.strictObject({ value: scalar }),
  z.strictObject({ any: z.array(scalar) }),
  z.strictObject({ except: z.array(scalar) }),
]);

const range = z.strictObject({ gt: bound, gte: bound, lt: bound, lte: bound }).meta({ description: 'an object with at least one of gt, gte, lt, lte' });

const keyOnly = z.strictObject({ key });

const condition: z.ZodType = z
  .union([
    z.strictObject({ key, match }),
    z.strictObject({ key, range }),
    z.strictObject({ has_id: pointIdList() }),
    z.strictObject({ is_empty: keyOnly }),
    z.strictObject({ is_null: keyOnly }),
    z.lazy(() => filter),
  ])
  .meta({ id: 'Condition', description: 'a condition: {key, match}, {key, range}, {has_id}, {is_empty}, {is_null} or a nested filter' });

const clause = () => z.union([condition, z.array(condition)]).nullish();

export const filter: z.ZodType = explainedBy(
  z
    .strictObject({ must: clause(), should: clause(), must_not: clause() })
    .meta({ id: 'Filter', description: 'a filter: an object with must (all hold), should (at least one holds) or must_not (none holds)' }),
  (where, value) => {
    parseFilter(value, where);
    return undefined;
  },
);
