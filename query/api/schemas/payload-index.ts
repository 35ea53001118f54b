import * as z from 'zod';
import { FIELD_INDEX_TYPES } from '../../../storage/events/types.js';

/**
 * Qdrant's create-index body. The options each type takes are the ones we honour: a text index
 * tokenises into lowercase words, so only that tokenizer is taken; storage options can only say
 * what we do (in memory). A geo index is a declaration: geo conditions read the payloads, exact
 * with it or without.
 */
const type = z.enum(FIELD_INDEX_TYPES).meta({ description: `one of ${FIELD_INDEX_TYPES.join(', ')}` });
const inMemory = { on_disk: z.literal(false).nullish().meta({ description: 'false: indexes are kept in memory' }) };
const tenant = { is_tenant: z.boolean().nullish() };
const principal = { is_principal: z.boolean().nullish() };

const fieldSchema = z
  .union([
    type,
    z.strictObject({ type: z.enum(['keyword', 'uuid']), ...tenant, ...inMemory }),
    z.strictObject({ type: z.literal('integer'), lookup: z.boolean().nullish(), range: z.boolean().nullish(), ...principal, ...inMemory }),
    z.strictObject({ type: z.enum(['float', 'datetime']), ...principal, ...inMemory }),
    z.strictObject({ type: z.literal('bool'), ...inMemory }),
    z.strictObject({
      type: z.literal('text'),
      tokenizer: z.enum(['word', 'multilingual']).nullish().meta({ description: 'word or multilingual: lowercase runs of letters and digits in any script' }),
      lowercase: z.literal(true).nullish(),
      phrase_matching: z.boolean().nullish().meta({ description: 'true: match.phrase finds words adjacent and in order (without it, a phrase match on this field finds nothing, as in Qdrant)' }),
      ...inMemory,
    }),
    z.strictObject({ type: z.literal('geo'), ...inMemory }),
  ])
  .meta({ id: 'FieldSchema', description: `a type (${FIELD_INDEX_TYPES.join(', ')}) or {type, ...options}` });

export const createIndexBody = z
  .strictObject({
    field_name: z.string().min(1).max(1024).meta({ description: 'the payload key to index (dots for nested keys)' }),
    field_schema: fieldSchema,
  })
  .meta({ id: 'CreateIndexBody' });
