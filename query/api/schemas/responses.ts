import * as z from 'zod';
import { DISTANCES } from '../../../storage/events/types.js';
import { IMPORT_MODES } from '../transfer.js';
import { payload } from './fields.js';

/** What the HTTP API answers, for the OpenAPI document: the envelope around each result, and the error body. */

/** A point id as answered: an integer, or a UUID lowercase and hyphenated. */
export const id = z.union([z.int().min(0), z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)]);
const count = z.int().min(0);

/** Every error: {status: "error", message, code} with code = the HTTP status (server/middleware/error-body.ts). */
export const errorBody = z
  .strictObject({ status: z.literal('error'), message: z.string(), code: z.int().min(400).max(599) })
  .meta({ id: 'ErrorBody', description: 'every error: the message says what is wrong; code repeats the HTTP status' });

/** The success envelope (server/state.ts ok()): `time` is the seconds spent on the request. */
export const envelope = (name: string, result: z.ZodType) =>
  z.strictObject({ status: z.literal('ok'), result, time: z.number().min(0) }).meta({ id: name });

export const operationResult = z
  .strictObject({ operation_id: count, status: z.literal('completed') })
  .meta({ id: 'OperationResult', description: 'a write, acknowledged once durable and applied' });

const vectorParams = z.strictObject({
  size: z.int().min(1),
  distance: z.enum(DISTANCES as [string, ...string[]]),
  hnsw_config: z.record(z.string(), z.number()).optional().meta({ description: "the vector's own HNSW settings, as given" }),
  on_disk: z.literal(true).optional(),
  datatype: z.literal('float32').optional(),
  multivector_config: z.strictObject({ comparator: z.literal('max_sim') }).optional(),
});

const vectorsConfig = z.union([vectorParams, z.record(z.string(), vectorParams)]).meta({ description: 'the unnamed vector, or an object from vector names to their params' });

const setting = z.union([z.number(), z.boolean(), z.string(), z.null()]);

export const collectionInfo = z
  .strictObject({
    name: z.string(),
    status: z.enum(['green', 'yellow']).meta({ description: 'yellow while points still wait for the background indexer, or while it repairs a graph after deletes, builds or re-codes quantized codes, builds a payload index or moves floats to or from disk' }),
    vectors_count: count,
    optimizer_status: z.literal('ok'),
    indexed_vectors_count: count,
    points_count: count,
    segments_count: count,
    config: z.strictObject({
      vectors: vectorsConfig,
      params: z
        .strictObject({
          vectors: vectorsConfig,
          sparse_vectors: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
          shard_number: z.int().min(1),
          sharding_method: z.literal('auto').optional(),
          replication_factor: z.int().min(1),
          write_consistency_factor: z.int().min(1),
          read_fan_out_factor: z.int().optional(),
          read_fan_out_delay_ms: z.int().optional(),
          on_disk_payload: z.boolean(),
        })
        .meta({ description: "Qdrant's params as given (one node: they change nothing here), else one shard, one replica, payloads in RAM" }),
      hnsw_config: z.strictObject({
        m: z.int(),
        ef_construct: z.int(),
        m0: z.int(),
        ml: z.number(),
        full_scan_threshold: z.int(),
        max_indexing_threads: z.int(),
        on_disk: z.literal(false),
        payload_m: z.int().optional(),
        inline_storage: z.literal(false).optional(),
      }),
      optimizer_config: z.record(z.string(), setting).meta({ description: "Qdrant's optimizer settings as given, over Qdrant's defaults (they change nothing here)" }),
      wal_config: z.record(z.string(), z.int()).meta({ description: "Qdrant's WAL settings as given, over Qdrant's defaults (the log here is not Qdrant's WAL)" }),
      quantization_config: z
        .strictObject({
          scalar: z.strictObject({ type: z.literal('int8'), quantile: z.number().optional(), always_ram: z.boolean().optional() }).optional(),
          binary: z.strictObject({ always_ram: z.boolean().optional() }).optional(),
        })
        .nullable()
        .meta({ description: 'the quantization in use (scalar or binary), or null' }),
      strict_mode_config: z.record(z.string(), z.unknown()).meta({ description: "Qdrant's strict mode settings as given; enabled is always false" }),
      metadata: payload.optional(),
    }),
    payload_schema: z
      .record(z.string(), z.strictObject({ data_type: z.string(), params: z.record(z.string(), z.unknown()).optional(), points: count }))
      .meta({ description: 'the declared payload indexes by field' }),
  })
  .meta({ id: 'CollectionInfo' });

const pointFields = {
  id,
  payload: payload.optional(),
  labels: z.array(z.string()).optional(),
  vector: z
    .union([
      z.array(z.number()),
      z.array(z.array(z.number())),
      z.record(z.string(), z.union([z.array(z.number()), z.array(z.array(z.number())), z.strictObject({ indices: z.array(z.int()), values: z.array(z.number()) })])),
      z.null(),
    ])
    .optional()
    .meta({ description: 'the vector (or multivector matrix) of a collection with only an unnamed one (null for a point without one, made by Cypher CREATE), else an object from vector names to the vectors the point has (sparse ones as {indices, values}, multivectors as arrays of rows)' }),
};

export const retrievedPoint = z.strictObject({ ...pointFields, order_value: z.number().optional().meta({ description: 'scroll with order_by: the value the point was ordered by' }) }).meta({ id: 'RetrievedPoint', description: 'payload and labels unless with_payload is false; vector when with_vector is true' });

export const scoredPoint = z
  .strictObject({
    ...pointFields,
    score: z.number().meta({ description: 'higher is more similar (0 for order_by and sample)' }),
    order_value: z.number().optional().meta({ description: 'for order_by: the value the point was ordered by (a date-time as its milliseconds)' }),
  })
  .meta({ id: 'ScoredPoint' });

export const snapshotDescription = z
  .strictObject({ name: z.string(), creation_time: z.string(), size: count, checksum: z.string().meta({ description: 'SHA-256 of the file, hex' }) })
  .meta({ id: 'SnapshotDescription' });

export const aliasList = z
  .strictObject({ aliases: z.array(z.strictObject({ alias_name: z.string(), collection_name: z.string() })) })
  .meta({ id: 'AliasList' });

export const pointGroups = z
  .strictObject({ groups: z.array(z.strictObject({ id: z.union([z.string(), z.int()]), hits: z.array(scoredPoint) })) })
  .meta({ id: 'PointGroups', description: 'the groups, best first, each with its best hits' });

export const edge = z.strictObject({ from_id: id, to_id: id, relation: z.string(), weight: z.number() }).meta({ id: 'Edge' });

export const neighbor = z.strictObject({ id, weight: z.number(), relation: z.string() }).meta({ id: 'Neighbor' });

export const traversal = z
  .strictObject({ visited: z.array(id), edges: z.array(edge), max_depth_reached: count })
  .meta({ id: 'Traversal', description: 'breadth-first: visited in visit order, start first; each edge that discovered a point' });

/** An operator of a Cypher plan, in Neo4j's shape (query/cypher/explain-plan.ts); children feed it rows. */
const planOperator = z
  .strictObject({
    operatorType: z.string(),
    identifiers: z.array(z.string()),
    args: z.record(z.string(), z.union([z.string(), z.number()])),
    get children(): z.ZodArray<typeof planOperator> {
      return z.array(planOperator);
    },
    rows: count.optional(),
    dbHits: count.optional(),
  })
  .meta({ id: 'PlanOperator' });

export const cypherResult = z
  .strictObject({
    columns: z.array(z.string()),
    rows: z.array(z.array(z.unknown())).meta({ description: 'one array per row, one value per column; nodes, relationships and paths as DECISIONS.md shows' }),
    stats: z.strictObject({ nodes_scanned: count, rows_returned: count, execution_time_ms: z.number().min(0) }),
    plan: planOperator.optional().meta({ description: 'EXPLAIN: the plan (the query did not run, rows is empty)' }),
    profile: planOperator.optional().meta({ description: 'PROFILE: the plan with rows and dbHits counted as the query ran' }),
  })
  .meta({ id: 'CypherResult' });

export const importResult = z
  .strictObject({ points_imported: count, points_skipped: count, dimension: z.int().min(1), mode: z.enum(IMPORT_MODES as [string, ...string[]]), operation_id: count })
  .meta({ id: 'ImportResult' });

export const serviceInfo = z.strictObject({ title: z.string(), version: z.string() }).meta({ id: 'ServiceInfo' });

export const healthy = z.strictObject({ status: z.literal('ok') }).meta({ id: 'Healthy' });

/** What GET /replication answers, and /readyz adds with replication on. */
export const replicationStatus = z
  .strictObject({
    role: z.enum(['primary', 'replica']),
    mode: z.enum(['sync', 'async']),
    primary: z.string().nullable(),
    fenced: z.string().nullable(),
    stopped: z.string().nullable(),
    applied_operation_id: z.number().int(),
    stream_operation_id: z.number().int().nullable(),
    lag_entries: z.number().int(),
    lag_ms: z.number(),
    published_operation_id: z.number().int().nullable(),
    unpublished_entries: z.number().int(),
  })
  .meta({ id: 'ReplicationStatus' });

export const ready = z.strictObject({ status: z.literal('ok'), replication: replicationStatus.optional() }).meta({ id: 'Ready' });
