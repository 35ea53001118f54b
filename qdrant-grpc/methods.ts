import type { DescMessage } from '@bufbuild/protobuf';
import * as pb from '@qdrant/js-client-grpc';
import type { RestCall } from './rest-dispatch.js';
import { collectionPath, noOtherFields, readOptions, recommendExamples, searchVector, spreadSelector, take, withVector, writeOptions, type Fields } from './request-fields.js';

/** A REST answer's envelope (Qdrant's {result, time}, or GET /'s own object). */
export type Envelope = Record<string, unknown> & { result?: unknown; time?: number };

/** Runs a REST call and hands back its body; an error answer is thrown as the gRPC error Qdrant gives. */
export type Rest = (call: RestCall) => Promise<Envelope>;

/** One unary gRPC method: its messages, and the REST call it stands for (request and answer as REST JSON). */
export interface GrpcMethod {
  input: DescMessage;
  output: DescMessage;
  run(fields: Fields, rest: Rest): Promise<unknown>;
}

const method = (input: DescMessage, output: DescMessage, run: GrpcMethod['run']): GrpcMethod => ({ input, output, run });

/** A write on a collection's points: the path under the collection, the body from the rest of the fields. */
function pointsWrite(verb: RestCall['method'], path: string, body: (fields: Fields) => Fields = (f) => f): GrpcMethod['run'] {
  return (fields, rest) => {
    const collection = collectionPath(fields);
    const query = writeOptions(fields);
    return rest({ method: verb, path: `${collection}${path}${query}`, body: body(fields) });
  };
}

/** A read on a collection's points: POST to the path, the answer's result reshaped by `answer`. */
function pointsRead(path: string, body: (fields: Fields) => Fields, answer: (result: unknown) => unknown = (r) => r): GrpcMethod['run'] {
  return async (fields, rest) => {
    const collection = collectionPath(fields);
    readOptions(fields);
    const { result, time } = await rest({ method: 'POST', path: `${collection}${path}`, body: body(fields) });
    return { result: answer(result), time };
  };
}

/** The searches of a batch request, each as its single form's body (their own collection_name is the batch's). */
function batch(listName: string, each: (fields: Fields) => Fields): (fields: Fields) => Fields {
  return (fields) => {
    const searches = ((take(fields, listName) as Fields[] | undefined) ?? []).map((s) => {
      delete s.collection_name;
      readOptions(s);
      return each(s);
    });
    return { ...fields, searches };
  };
}

const points = (result: unknown): unknown => (result as { points: unknown }).points;
const eachResult = (reshape: (r: unknown) => unknown) => (result: unknown) => (result as unknown[]).map((r) => ({ result: reshape(r) }));

const QDRANT: Record<string, GrpcMethod> = {
  HealthCheck: method(pb.HealthCheckRequestSchema, pb.HealthCheckReplySchema, (_f, rest) => rest({ method: 'GET', path: '/' })),
};

const COLLECTIONS: Record<string, GrpcMethod> = {
  List: method(pb.ListCollectionsRequestSchema, pb.ListCollectionsResponseSchema, async (_f, rest) => {
    const { result, time } = await rest({ method: 'GET', path: '/collections' });
    return { ...(result as object), time };
  }),
  Get: method(pb.GetCollectionInfoRequestSchema, pb.GetCollectionInfoResponseSchema, (f, rest) => rest({ method: 'GET', path: `${collectionPath(f)}${noOtherFields(f)}` })),
  CollectionExists: method(pb.CollectionExistsRequestSchema, pb.CollectionExistsResponseSchema, (f, rest) => rest({ method: 'GET', path: `${collectionPath(f)}/exists${noOtherFields(f)}` })),
  Create: method(pb.CreateCollectionSchema, pb.CollectionOperationResponseSchema, (f, rest) => {
    const path = collectionPath(f);
    take(f, 'timeout');
    return rest({ method: 'PUT', path, body: f });
  }),
  Update: method(pb.UpdateCollectionSchema, pb.CollectionOperationResponseSchema, (f, rest) => {
    const path = collectionPath(f);
    take(f, 'timeout');
    return rest({ method: 'PATCH', path, body: f });
  }),
  Delete: method(pb.DeleteCollectionSchema, pb.CollectionOperationResponseSchema, (f, rest) => {
    const path = collectionPath(f);
    take(f, 'timeout');
    return rest({ method: 'DELETE', path: `${path}${noOtherFields(f)}` });
  }),
  UpdateAliases: method(pb.ChangeAliasesSchema, pb.CollectionOperationResponseSchema, (f, rest) => {
    take(f, 'timeout');
    return rest({ method: 'POST', path: '/collections/aliases', body: { actions: [], ...f } });
  }),
  ListAliases: method(pb.ListAliasesRequestSchema, pb.ListAliasesResponseSchema, async (_f, rest) => {
    const { result, time } = await rest({ method: 'GET', path: '/aliases' });
    return { ...(result as object), time };
  }),
  ListCollectionAliases: method(pb.ListCollectionAliasesRequestSchema, pb.ListAliasesResponseSchema, async (f, rest) => {
    const { result, time } = await rest({ method: 'GET', path: `${collectionPath(f)}/aliases${noOtherFields(f)}` });
    return { ...(result as object), time };
  }),
};

const POINTS: Record<string, GrpcMethod> = {
  Upsert: method(pb.UpsertPointsSchema, pb.PointsOperationResponseSchema, pointsWrite('PUT', '/points', (f) => ({ points: [], ...f }))),
  Delete: method(pb.DeletePointsSchema, pb.PointsOperationResponseSchema, pointsWrite('POST', '/points/delete', (f) => spreadSelector(f, 'points'))),
  UpdateVectors: method(pb.UpdatePointVectorsSchema, pb.PointsOperationResponseSchema, pointsWrite('PUT', '/points/vectors')),
  DeleteVectors: method(
    pb.DeletePointVectorsSchema,
    pb.PointsOperationResponseSchema,
    pointsWrite('POST', '/points/vectors/delete', (f) => {
      const names = take(f, 'vectors');
      return { ...spreadSelector(f, 'points_selector'), vector: names ?? [] };
    }),
  ),
  SetPayload: method(pb.SetPayloadPointsSchema, pb.PointsOperationResponseSchema, pointsWrite('POST', '/points/payload', (f) => spreadSelector({ payload: {}, ...f }, 'points_selector'))),
  OverwritePayload: method(pb.SetPayloadPointsSchema, pb.PointsOperationResponseSchema, pointsWrite('PUT', '/points/payload', (f) => spreadSelector({ payload: {}, ...f }, 'points_selector'))),
  DeletePayload: method(pb.DeletePayloadPointsSchema, pb.PointsOperationResponseSchema, pointsWrite('POST', '/points/payload/delete', (f) => spreadSelector({ keys: [], ...f }, 'points_selector'))),
  ClearPayload: method(pb.ClearPayloadPointsSchema, pb.PointsOperationResponseSchema, pointsWrite('POST', '/points/payload/clear', (f) => spreadSelector(f, 'points'))),
  CreateFieldIndex: method(pb.CreateFieldIndexCollectionSchema, pb.PointsOperationResponseSchema, (f, rest) => {
    const collection = collectionPath(f);
    const query = writeOptions(f);
    const type = take(f, 'field_type');
    const params = take(f, 'field_index_params');
    return rest({ method: 'PUT', path: `${collection}/index${query}`, body: { ...f, field_schema: params ?? type } });
  }),
  DeleteFieldIndex: method(pb.DeleteFieldIndexCollectionSchema, pb.PointsOperationResponseSchema, (f, rest) => {
    const collection = collectionPath(f);
    const query = writeOptions(f);
    const field = String(take(f, 'field_name') ?? '');
    return rest({ method: 'DELETE', path: `${collection}/index/${encodeURIComponent(field)}${noOtherFields(f)}${query}` });
  }),
  Get: method(pb.GetPointsSchema, pb.GetResponseSchema, pointsRead('/points', (f) => withVector({ ids: [], ...f }))),
  Count: method(pb.CountPointsSchema, pb.CountResponseSchema, pointsRead('/points/count', (f) => f)),
  Scroll: method(pb.ScrollPointsSchema, pb.ScrollResponseSchema, async (f, rest) => {
    const collection = collectionPath(f);
    readOptions(f);
    const { result, time } = await rest({ method: 'POST', path: `${collection}/points/scroll`, body: withVector(f) });
    const page = result as { points: unknown; next_page_offset?: unknown };
    return { result: page.points, next_page_offset: page.next_page_offset, time };
  }),
  Search: method(pb.SearchPointsSchema, pb.SearchResponseSchema, pointsRead('/points/search', searchVector)),
  SearchBatch: method(pb.SearchBatchPointsSchema, pb.SearchBatchResponseSchema, pointsRead('/points/search/batch', batch('search_points', searchVector), eachResult((r) => r))),
  Query: method(pb.QueryPointsSchema, pb.QueryResponseSchema, pointsRead('/points/query', withVector, points)),
  QueryBatch: method(pb.QueryBatchPointsSchema, pb.QueryBatchResponseSchema, pointsRead('/points/query/batch', batch('query_points', withVector), eachResult(points))),
  Recommend: method(pb.RecommendPointsSchema, pb.RecommendResponseSchema, pointsRead('/points/recommend', recommendExamples)),
  RecommendBatch: method(pb.RecommendBatchPointsSchema, pb.RecommendBatchResponseSchema, pointsRead('/points/recommend/batch', batch('recommend_points', recommendExamples), eachResult((r) => r))),
  UpdateBatch: method(pb.UpdateBatchPointsSchema, pb.UpdateBatchResponseSchema, pointsWrite('POST', '/points/batch', (f) => ({ operations: [], ...f }))),
  Discover: method(pb.DiscoverPointsSchema, pb.DiscoverResponseSchema, pointsRead('/points/discover', withVector)),
  DiscoverBatch: method(pb.DiscoverBatchPointsSchema, pb.DiscoverBatchResponseSchema, pointsRead('/points/discover/batch', batch('discover_points', withVector), eachResult((r) => r))),
  SearchGroups: method(pb.SearchPointGroupsSchema, pb.SearchGroupsResponseSchema, pointsRead('/points/search/groups', searchVector)),
  RecommendGroups: method(pb.RecommendPointGroupsSchema, pb.RecommendGroupsResponseSchema, pointsRead('/points/recommend/groups', recommendExamples)),
  QueryGroups: method(pb.QueryPointGroupsSchema, pb.QueryGroupsResponseSchema, pointsRead('/points/query/groups', withVector)),
  Facet: method(pb.FacetCountsSchema, pb.FacetResponseSchema, async (f, rest) => {
    const collection = collectionPath(f);
    readOptions(f);
    const { result, time } = await rest({ method: 'POST', path: `${collection}/facet`, body: f });
    return { ...(result as object), time };
  }),
  SearchMatrixPairs: method(pb.SearchMatrixPointsSchema, pb.SearchMatrixPairsResponseSchema, pointsRead('/points/search/matrix/pairs', (f) => f)),
  SearchMatrixOffsets: method(pb.SearchMatrixPointsSchema, pb.SearchMatrixOffsetsResponseSchema, pointsRead('/points/search/matrix/offsets', (f) => f)),
};

/** A collection's snapshots; the full snapshots of the whole storage are not served (nor on REST). */
const SNAPSHOTS: Record<string, GrpcMethod> = {
  Create: method(pb.CreateSnapshotRequestSchema, pb.CreateSnapshotResponseSchema, async (f, rest) => {
    const { result, time } = await rest({ method: 'POST', path: `${collectionPath(f)}/snapshots${noOtherFields(f)}` });
    return { snapshot_description: result, time };
  }),
  List: method(pb.ListSnapshotsRequestSchema, pb.ListSnapshotsResponseSchema, async (f, rest) => {
    const { result, time } = await rest({ method: 'GET', path: `${collectionPath(f)}/snapshots${noOtherFields(f)}` });
    return { snapshot_descriptions: result, time };
  }),
  Delete: method(pb.DeleteSnapshotRequestSchema, pb.DeleteSnapshotResponseSchema, async (f, rest) => {
    const collection = collectionPath(f);
    const snapshot = encodeURIComponent(String(take(f, 'snapshot_name') ?? ''));
    return rest({ method: 'DELETE', path: `${collection}/snapshots/${snapshot}${noOtherFields(f)}` });
  }),
};

/** The methods served, by gRPC path (/qdrant.Points/Upsert). */
export const METHODS: ReadonlyMap<string, GrpcMethod> = new Map(
  Object.entries({ 'qdrant.Qdrant': QDRANT, 'qdrant.Collections': COLLECTIONS, 'qdrant.Points': POINTS, 'qdrant.Snapshots': SNAPSHOTS }).flatMap(([service, methods]) => Object.entries(methods).map(([name, m]) => [`/${service}/${name}`, m] as const)),
);

/** Qdrant's services, whose other methods are answered UNIMPLEMENTED by name. */
export const QDRANT_SERVICES = new Set(['qdrant.Qdrant', 'qdrant.Collections', 'qdrant.Points', 'qdrant.Snapshots']);
