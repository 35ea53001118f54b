import * as z from 'zod';
import { DIRECTIONS } from '../../query/api/graph-body.js';
import { createCollectionBody } from '../../query/api/schemas/collection.js';
import { edgeBody, graphQueryBody, traverseBody } from '../../query/api/schemas/graph.js';
import { countBody, deleteBody, retrieveBody, scrollBody, upsertBody } from '../../query/api/schemas/points.js';
import * as out from '../../query/api/schemas/responses.js';
import { createIndexBody } from '../../query/api/schemas/payload-index.js';
import { aliasActionsBody } from '../../query/api/schemas/aliases.js';
import { patchCollectionBody } from '../../query/api/schemas/patch-collection.js';
import { recoverSnapshotBody } from '../../query/api/schemas/snapshots.js';
import { discoverBatchBody, discoverBody, facetBody, recommendBatchBody, recommendBody, recommendGroupsBody, searchGroupsBody, searchMatrixBody } from '../../query/api/schemas/recommend.js';
import { batchUpdateBody, deletePayloadBody, deleteVectorsBody, overwritePayloadBody, pointsSelectorBody, setPayloadBody, updateVectorsBody } from '../../query/api/schemas/point-updates.js';
import { batchSearchBody, searchBody } from '../../query/api/schemas/search.js';
import { universalBatchBody, universalGroupsBody, universalQueryBody } from '../../query/api/schemas/universal-query.js';
import { IMPORT_MODES } from '../../query/api/transfer.js';

/** One endpoint as the OpenAPI document describes it; `path` uses OpenAPI's {param} templates. */
export interface Operation {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  path: string;
  operationId: string;
  summary: string;
  tag: 'collections' | 'points' | 'search' | 'graph' | 'transfer' | 'changes' | 'service';
  /** Never behind credentials. */
  isPublic?: boolean;
  query?: QueryParameter[];
  /** A JSON body schema, or the binary export file. */
  body?: z.ZodType | 'export-file' | 'snapshot-upload';
  bodyRequired?: boolean;
  /** The 200 answer: a JSON schema, Prometheus text, or the binary export file. */
  answer: z.ZodType | 'prometheus-text' | 'export-file' | 'openapi-document' | 'change-feed' | 'snapshot-file';
  /** Error statuses worth naming beside the ones every operation can answer. */
  errors: number[];
}

export interface QueryParameter {
  name: string;
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

const wait: QueryParameter = {
  name: 'wait',
  description: "Qdrant's parameter, accepted: every write is answered only once it is durable and applied",
  schema: { type: 'boolean' },
};

const collection = '/collections/{collection_name}';
const ok = out.envelope;

export const OPERATIONS: readonly Operation[] = [
  { method: 'get', path: '/', operationId: 'serviceInfo', summary: 'Service title and version', tag: 'service', isPublic: true, answer: out.serviceInfo, errors: [] },
  { method: 'get', path: '/health', operationId: 'health', summary: 'Liveness', tag: 'service', isPublic: true, answer: out.healthy, errors: [] },
  { method: 'get', path: '/healthz', operationId: 'healthz', summary: 'Liveness (Kubernetes name)', tag: 'service', isPublic: true, answer: out.healthy, errors: [] },
  { method: 'get', path: '/ready', operationId: 'ready', summary: 'Readiness: 503 until the log is replayed (with replication on: its role and lag)', tag: 'service', isPublic: true, answer: out.ready, errors: [503] },
  { method: 'get', path: '/readyz', operationId: 'readyz', summary: 'Readiness (Kubernetes name)', tag: 'service', isPublic: true, answer: out.ready, errors: [503] },
  { method: 'get', path: '/openapi.json', operationId: 'openapi', summary: 'This document (OpenAPI 3.1)', tag: 'service', isPublic: true, answer: 'openapi-document', errors: [] },
  { method: 'get', path: '/replication', operationId: 'replicationStatus', summary: 'Replication: role, primary, lag (404 when SERVICE_NATS_URL is unset)', tag: 'service', answer: ok('ReplicationStatusResponse', out.replicationStatus), errors: [404] },
  { method: 'post', path: '/replication/promote', operationId: 'promoteReplica', summary: 'Promote this replica to primary once it has applied the whole stream', tag: 'service', answer: ok('PromotedResponse', z.strictObject({ operation_id: z.number().int() })), errors: [404, 409, 503] },
  { method: 'get', path: '/replication/bootstrap', operationId: 'replicationBootstrap', summary: 'A fresh snapshot for a new replica (its operation_id in X-Operation-Id)', tag: 'service', answer: 'snapshot-file', errors: [404, 503] },
  { method: 'get', path: '/metrics', operationId: 'metrics', summary: 'Prometheus metrics (public when SERVICE_METRICS_PUBLIC is set)', tag: 'service', answer: 'prometheus-text', errors: [] },

  { method: 'get', path: '/collections', operationId: 'listCollections', summary: 'List collections', tag: 'collections', answer: ok('CollectionListResponse', z.strictObject({ collections: z.array(z.strictObject({ name: z.string() })) })), errors: [] },
  { method: 'put', path: collection, operationId: 'createCollection', summary: 'Create a collection', tag: 'collections', body: createCollectionBody, bodyRequired: true, answer: ok('CreatedResponse', z.literal(true)), errors: [400, 409] },
  { method: 'get', path: collection, operationId: 'getCollection', summary: 'Collection info', tag: 'collections', answer: ok('CollectionInfoResponse', out.collectionInfo), errors: [404] },
  { method: 'get', path: `${collection}/exists`, operationId: 'collectionExists', summary: 'Whether a collection exists', tag: 'collections', answer: ok('ExistsResponse', z.strictObject({ exists: z.boolean() })), errors: [] },
  { method: 'delete', path: collection, operationId: 'deleteCollection', summary: 'Delete a collection with its points and edges', tag: 'collections', answer: ok('DeletedResponse', z.literal(true)), errors: [404] },

  { method: 'put', path: `${collection}/points`, operationId: 'upsertPoints', summary: 'Upsert points (one atomic operation)', tag: 'points', query: [wait], body: upsertBody, bodyRequired: true, answer: ok('UpsertResponse', out.operationResult), errors: [400, 404] },
  { method: 'post', path: `${collection}/points`, operationId: 'getPoints', summary: 'Get points by id (missing ids are left out)', tag: 'points', body: retrieveBody, bodyRequired: true, answer: ok('RetrievedPointsResponse', z.array(out.retrievedPoint)), errors: [400, 404] },
  { method: 'put', path: `${collection}/index`, operationId: 'createPayloadIndex', summary: 'Declare a payload index on a field (keyword, integer, float, bool, uuid, datetime, text)', tag: 'collections', query: [wait], body: createIndexBody, bodyRequired: true, answer: ok('CreateIndexResponse', out.operationResult), errors: [400, 404] },
  { method: 'delete', path: `${collection}/index/{field_name}`, operationId: 'deletePayloadIndex', summary: 'Drop the payload index of a field', tag: 'collections', query: [wait], answer: ok('DeleteIndexResponse', out.operationResult), errors: [404] },
  { method: 'patch', path: collection, operationId: 'updateCollection', summary: "Qdrant's collection update: optimizer settings kept and reported; m and ef_construct only as they are", tag: 'collections', body: patchCollectionBody, bodyRequired: true, answer: ok('UpdateCollectionResponse', z.literal(true)), errors: [400, 404] },
  { method: 'post', path: `${collection}/snapshots`, operationId: 'createSnapshot', summary: 'Write a snapshot of the collection (its export file) beside the data', tag: 'transfer', answer: ok('SnapshotResponse', out.snapshotDescription), errors: [404] },
  { method: 'get', path: `${collection}/snapshots`, operationId: 'listSnapshots', summary: "The collection's snapshots", tag: 'transfer', answer: ok('SnapshotListResponse', z.array(out.snapshotDescription)), errors: [404] },
  { method: 'get', path: `${collection}/snapshots/{snapshot_name}`, operationId: 'getSnapshot', summary: 'Download a snapshot', tag: 'transfer', answer: 'snapshot-file', errors: [400, 404] },
  { method: 'delete', path: `${collection}/snapshots/{snapshot_name}`, operationId: 'deleteSnapshot', summary: 'Delete a snapshot', tag: 'transfer', answer: ok('DeleteSnapshotResponse', z.literal(true)), errors: [400, 404] },
  { method: 'put', path: `${collection}/snapshots/recover`, operationId: 'recoverSnapshot', summary: 'Replace the collection with a snapshot of this server (a file:// location in its snapshots directory), as one import', tag: 'transfer', body: recoverSnapshotBody, bodyRequired: true, answer: ok('RecoverSnapshotResponse', z.literal(true)), errors: [400, 404] },
  { method: 'put', path: `${collection}/snapshots/upload`, operationId: 'uploadSnapshot', summary: 'Replace the collection with an uploaded snapshot (multipart field "snapshot"), as one import', tag: 'transfer', body: 'snapshot-upload', bodyRequired: true, answer: ok('UploadSnapshotResponse', z.literal(true)), errors: [400, 413, 415] },
  { method: 'post', path: '/collections/aliases', operationId: 'updateAliases', summary: 'Create, delete and rename aliases, in order, as one operation', tag: 'collections', body: aliasActionsBody, bodyRequired: true, answer: ok('UpdateAliasesResponse', z.literal(true)), errors: [400, 404, 409] },
  { method: 'get', path: '/aliases', operationId: 'listAliases', summary: 'Every alias with its collection', tag: 'collections', answer: ok('AliasesResponse', out.aliasList), errors: [] },
  { method: 'get', path: `${collection}/aliases`, operationId: 'collectionAliases', summary: "A collection's aliases", tag: 'collections', answer: ok('CollectionAliasesResponse', out.aliasList), errors: [404] },
  { method: 'get', path: `${collection}/points/{point_id}`, operationId: 'getPoint', summary: 'One point, with its payload, labels and vector', tag: 'points', answer: ok('PointResponse', out.retrievedPoint), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/payload`, operationId: 'setPayload', summary: 'Merge keys into the payload of points (by ids or filter), or into the object at key', tag: 'points', query: [wait], body: setPayloadBody, bodyRequired: true, answer: ok('SetPayloadResponse', out.operationResult), errors: [400, 404] },
  { method: 'put', path: `${collection}/points/payload`, operationId: 'overwritePayload', summary: 'Replace the payload of points (by ids or filter)', tag: 'points', query: [wait], body: overwritePayloadBody, bodyRequired: true, answer: ok('OverwritePayloadResponse', out.operationResult), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/payload/delete`, operationId: 'deletePayload', summary: 'Remove payload keys from points (by ids or filter)', tag: 'points', query: [wait], body: deletePayloadBody, bodyRequired: true, answer: ok('DeletePayloadResponse', out.operationResult), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/payload/clear`, operationId: 'clearPayload', summary: 'Empty the payload of points (by ids or filter)', tag: 'points', query: [wait], body: pointsSelectorBody, bodyRequired: true, answer: ok('ClearPayloadResponse', out.operationResult), errors: [400, 404] },
  { method: 'put', path: `${collection}/points/vectors`, operationId: 'updateVectors', summary: 'Give points new vectors (payload, labels and edges stay)', tag: 'points', query: [wait], body: updateVectorsBody, bodyRequired: true, answer: ok('UpdateVectorsResponse', out.operationResult), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/vectors/delete`, operationId: 'deleteVectors', summary: 'Take the vector from points (they stay, as graph nodes)', tag: 'points', query: [wait], body: deleteVectorsBody, bodyRequired: true, answer: ok('DeleteVectorsResponse', out.operationResult), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/batch`, operationId: 'batchUpdate', summary: 'Several point updates applied in order as one operation', tag: 'points', query: [wait], body: batchUpdateBody, bodyRequired: true, answer: ok('BatchUpdateResponse', z.array(out.operationResult)), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/delete`, operationId: 'deletePoints', summary: 'Delete points by id or by filter, with their edges', tag: 'points', query: [wait], body: deleteBody, bodyRequired: true, answer: ok('DeletePointsResponse', out.operationResult), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/scroll`, operationId: 'scrollPoints', summary: 'Page through points in ascending id order', tag: 'points', body: scrollBody, answer: ok('ScrollResponse', z.strictObject({ points: z.array(out.retrievedPoint), next_page_offset: out.id.nullable().meta({ description: 'the offset of the next page (an integer or a UUID); null on the last page' }) })), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/count`, operationId: 'countPoints', summary: 'Count the points a filter matches (always exact)', tag: 'points', body: countBody, answer: ok('CountResponse', z.strictObject({ count: z.int().min(0) })), errors: [400, 404] },

  { method: 'post', path: `${collection}/points/query`, operationId: 'queryPoints', summary: "Qdrant's query (nearest, mmr, recommend, discover, context, prefetch with fusion, order_by, sample), best first; this port answers the array (Qdrant's port: {points})", tag: 'search', body: universalQueryBody, bodyRequired: true, answer: ok('ScoredPointsResponse', z.array(out.scoredPoint)), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/query/batch`, operationId: 'queryBatch', summary: 'Many queries at once, answered in order', tag: 'search', body: universalBatchBody, bodyRequired: true, answer: ok('QueryBatchResponse', z.array(z.array(out.scoredPoint))), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/query/groups`, operationId: 'queryGroups', summary: 'A query whose hits are grouped by a payload key', tag: 'search', body: universalGroupsBody, bodyRequired: true, answer: ok('QueryGroupsResponse', out.pointGroups), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/search`, operationId: 'searchPoints', summary: "Vector search in Qdrant's shape (`vector`)", tag: 'search', body: searchBody, bodyRequired: true, answer: ok('SearchResponse', z.array(out.scoredPoint)), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/recommend`, operationId: 'recommendPoints', summary: 'Points like the positive examples and unlike the negative ones (ids or vectors)', tag: 'search', body: recommendBody, bodyRequired: true, answer: ok('RecommendResponse', z.array(out.scoredPoint)), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/recommend/batch`, operationId: 'recommendBatch', summary: 'Many recommendations at once, answered in order', tag: 'search', body: recommendBatchBody, bodyRequired: true, answer: ok('RecommendBatchResponse', z.array(z.array(out.scoredPoint))), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/recommend/groups`, operationId: 'recommendGroups', summary: 'A recommendation whose hits are grouped by a payload key', tag: 'search', body: recommendGroupsBody, bodyRequired: true, answer: ok('RecommendGroupsResponse', out.pointGroups), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/discover`, operationId: 'discoverPoints', summary: 'Points near the target on the positive side of each context pair (no target: context search), scored exactly', tag: 'search', body: discoverBody, bodyRequired: true, answer: ok('DiscoverResponse', z.array(out.scoredPoint)), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/discover/batch`, operationId: 'discoverBatch', summary: 'Many discovery searches at once, answered in order', tag: 'search', body: discoverBatchBody, bodyRequired: true, answer: ok('DiscoverBatchResponse', z.array(z.array(out.scoredPoint))), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/search/matrix/pairs`, operationId: 'searchMatrixPairs', summary: 'The first points (by id) and, for each, its nearest among them, as pairs', tag: 'search', body: searchMatrixBody, answer: ok('SearchMatrixPairsResponse', z.strictObject({ pairs: z.array(z.strictObject({ a: out.id, b: out.id, score: z.number() })) })), errors: [400, 404] },
  {
    method: 'post',
    path: `${collection}/points/search/matrix/offsets`,
    operationId: 'searchMatrixOffsets',
    summary: 'The first points (by id) and, for each, its nearest among them, as a sparse matrix over ids',
    tag: 'search',
    body: searchMatrixBody,
    answer: ok('SearchMatrixOffsetsResponse', z.strictObject({ offsets_row: z.array(z.int().min(0)), offsets_col: z.array(z.int().min(0)), scores: z.array(z.number()), ids: z.array(out.id) })),
    errors: [400, 404],
  },
  { method: 'post', path: `${collection}/points/search/groups`, operationId: 'searchGroups', summary: 'A search whose hits are grouped by a payload key', tag: 'search', body: searchGroupsBody, bodyRequired: true, answer: ok('SearchGroupsResponse', out.pointGroups), errors: [400, 404] },
  { method: 'post', path: `${collection}/facet`, operationId: 'facet', summary: 'How many points hold each value of a payload key, most first', tag: 'search', body: facetBody, bodyRequired: true, answer: ok('FacetResponse', z.strictObject({ hits: z.array(z.strictObject({ value: z.union([z.string(), z.number(), z.boolean()]), count: z.int().min(0) })) })), errors: [400, 404] },
  { method: 'post', path: `${collection}/points/search/batch`, operationId: 'searchBatch', summary: 'Many searches at once, answered in order', tag: 'search', body: batchSearchBody, bodyRequired: true, answer: ok('BatchSearchResponse', z.array(z.array(out.scoredPoint))), errors: [400, 404] },

  { method: 'post', path: `${collection}/graph/edges`, operationId: 'addEdge', summary: 'Add an edge, or set the weight of an existing one', tag: 'graph', body: edgeBody, bodyRequired: true, answer: ok('EdgeResponse', z.strictObject({ created: z.boolean() })), errors: [400, 404] },
  {
    method: 'get',
    path: `${collection}/graph/neighbors/{point_id}`,
    operationId: 'getNeighbors',
    summary: 'Neighbours of a point',
    tag: 'graph',
    query: [
      { name: 'relation', description: 'only edges of this relation', schema: { type: 'string' } },
      { name: 'direction', description: 'which edges to follow (default outgoing)', schema: { type: 'string', enum: [...DIRECTIONS] } },
    ],
    answer: ok('NeighborsResponse', z.strictObject({ neighbors: z.array(out.neighbor) })),
    errors: [400, 404],
  },
  { method: 'post', path: `${collection}/graph/traverse`, operationId: 'traverse', summary: 'Breadth-first traversal', tag: 'graph', body: traverseBody, bodyRequired: true, answer: ok('TraverseResponse', out.traversal), errors: [400, 404] },
  { method: 'post', path: `${collection}/graph/query`, operationId: 'graphQuery', summary: 'Run a Cypher query (reads, and writes applied atomically)', tag: 'graph', body: graphQueryBody, bodyRequired: true, answer: ok('CypherResponse', out.cypherResult), errors: [400, 404] },

  {
    method: 'get',
    path: `${collection}/export`,
    operationId: 'exportCollection',
    summary: 'The whole collection as a binary file, now or as it was right after an operation',
    tag: 'transfer',
    query: [{ name: 'at', description: 'an operation_id: the collection as it was right after it (410 when the log and snapshots no longer reach back to it)', schema: { type: 'integer', minimum: 0 } }],
    answer: 'export-file',
    errors: [400, 404, 410],
  },
  {
    method: 'post',
    path: `${collection}/import`,
    operationId: 'importCollection',
    summary: 'Import an export file',
    tag: 'transfer',
    query: [{ name: 'mode', required: true, description: 'create (409 if it exists), replace (drops an existing one) or merge (adds, skipping ids it has)', schema: { type: 'string', enum: [...IMPORT_MODES] } }],
    body: 'export-file',
    bodyRequired: true,
    answer: ok('ImportResponse', out.importResult),
    errors: [400, 404, 409, 413],
  },
  {
    method: 'get',
    path: '/changes',
    operationId: 'changes',
    summary: 'The changefeed: log entries from an operation on, then each new one as it is applied',
    tag: 'changes',
    query: [
      { name: 'from', description: 'the first operation_id wanted (default: the next one; for Server-Sent Events, one after Last-Event-ID)', schema: { type: 'integer', minimum: 0 } },
      { name: 'collection', description: 'only the entries of this collection', schema: { type: 'string' } },
      { name: 'wait_ms', description: 'end the stream after this long with no new entry (default: never)', schema: { type: 'integer', minimum: 0 } },
    ],
    answer: 'change-feed',
    errors: [400, 410],
  },
];
