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
  z.strictObject({ text: z.string().meta({ description: 'full-text match: with a text index every word appears in the field, without one the field holds the string' }) }),
  z.strictObject({ text_any: z.string().meta({ description: 'full-text match: with a text index one word at least appears, without one the field holds one of its whitespace-separated parts' }) }),
  z.strictObject({ phrase: z.string().meta({ description: 'phrase match: with a text index (phrase_matching: true) the words appear adjacent and in order, without one the field holds the string' }) }),
]);

const range = z.strictObject({ gt: bound, gte: bound, lt: bound, lte: bound }).meta({ description: 'an object with at least one of gt, gte, lt, lte' });

const keyOnly = z.strictObject({ key });

const geoPoint = z.strictObject({ lat: z.number().min(-90).max(90), lon: z.number().min(-180).max(180) }).meta({ id: 'GeoPoint', description: 'a point in degrees' });
const ring = z.strictObject({ points: z.array(geoPoint).min(4) }).meta({ description: 'a closed line: four points at least, the last the first again' });
const geoRadius = z.strictObject({ center: geoPoint, radius: z.number().meta({ description: 'metres' }) });
const geoBox = z.strictObject({ top_left: geoPoint, bottom_right: geoPoint });
const geoPolygon = z.strictObject({ exterior: ring, interiors: z.array(ring).nullish() });

const condition: z.ZodType = z
  .union([
    z.strictObject({ key, match }),
    z.strictObject({ key, range }),
    z.strictObject({ key, values_count: z.strictObject({ gt: countBound, gte: countBound, lt: countBound, lte: countBound }) }),
    z.strictObject({ key, geo_radius: geoRadius }),
    z.strictObject({ key, geo_bounding_box: geoBox }),
    z.strictObject({ key, geo_polygon: geoPolygon }),
    z.strictObject({ nested: z.strictObject({ key, filter: z.lazy(() => filter) }) }),
    z.strictObject({ has_id: pointIdList() }),
    z.strictObject({ has_vector: z.string().meta({ description: 'the name of a vector the point must have ("" the unnamed one)' }) }),
    z.strictObject({ is_empty: keyOnly }),
    z.strictObject({ is_null: keyOnly }),
    z.lazy(() => filter),
  ])
  .meta({ id: 'Condition', description: 'a condition: {key, match}, {key, range}, {key, values_count}, {key, geo_radius | geo_bounding_box | geo_polygon}, {has_id}, {has_vector}, {is_empty}, {is_null}, {nested: {key, filter}} or a nested filter' });

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
