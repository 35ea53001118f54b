import { ProtoJson, type MessageCodec } from './proto-json.js';
import { maxOptimizationThreadsCodec, optimizerStatusCodec, payloadIndexParamsCodec, sparseVectorConfigCodec, vectorsConfigCodec, vectorsConfigDiffCodec } from './collection-codecs.js';
import { conditionCodec, fieldConditionCodec, matchCodec } from './filter-codecs.js';
import { contextInputCodec, queryCodec } from './query-codecs.js';
import { facetValueCodec, groupIdCodec } from './result-codecs.js';
import { payloadExcludeCodec, pointsSelectorCodec } from './selector-codecs.js';
import { pointsUpdateOperationCodec } from './update-batch-codec.js';
import { fieldOnly, listValueCodec, memberOnly, pointIdCodec, structCodec, timestampCodec, valueCodec } from './value-codecs.js';
import { denseVectorCodec, multiDenseVectorCodec, namedVectorsCodec, vectorCodec, vectorInputCodec, vectorOutputCodec, vectorsOutputCodec } from './vector-codecs.js';

/** The messages whose REST form is not their fields under their proto names, by type name. */
const CODECS = new Map<string, MessageCodec>([
  ['qdrant.PointId', pointIdCodec],
  ['qdrant.Value', valueCodec],
  ['qdrant.Struct', structCodec],
  ['qdrant.ListValue', listValueCodec],
  ['google.protobuf.Timestamp', timestampCodec],
  ['qdrant.Vector', vectorCodec],
  ['qdrant.Vectors', memberOnly('vectors_options')],
  ['qdrant.VectorInput', vectorInputCodec],
  ['qdrant.DenseVector', denseVectorCodec],
  ['qdrant.MultiDenseVector', multiDenseVectorCodec],
  ['qdrant.NamedVectors', namedVectorsCodec],
  ['qdrant.VectorOutput', vectorOutputCodec],
  ['qdrant.VectorsOutput', vectorsOutputCodec],
  ['qdrant.Condition', conditionCodec],
  ['qdrant.FieldCondition', fieldConditionCodec],
  ['qdrant.Match', matchCodec],
  ['qdrant.RepeatedStrings', fieldOnly('strings')],
  ['qdrant.RepeatedIntegers', fieldOnly('integers')],
  ['qdrant.StartFrom', memberOnly('value')],
  ['qdrant.ShardKey', memberOnly('key')],
  ['qdrant.WithPayloadSelector', memberOnly('selector_options')],
  ['qdrant.WithVectorsSelector', memberOnly('selector_options')],
  ['qdrant.PayloadIncludeSelector', fieldOnly('fields')],
  ['qdrant.PayloadExcludeSelector', payloadExcludeCodec],
  ['qdrant.VectorsSelector', fieldOnly('names')],
  ['qdrant.PointsIdsList', fieldOnly('ids')],
  ['qdrant.PointsSelector', pointsSelectorCodec],
  ['qdrant.Query', queryCodec],
  ['qdrant.ContextInput', contextInputCodec],
  ['qdrant.TargetVector', memberOnly('target')],
  ['qdrant.VectorExample', memberOnly('example')],
  ['qdrant.PointsUpdateOperation', pointsUpdateOperationCodec],
  ['qdrant.FacetValue', facetValueCodec],
  ['qdrant.GroupId', groupIdCodec],
  ['qdrant.VectorsConfig', vectorsConfigCodec],
  ['qdrant.VectorsConfigDiff', vectorsConfigDiffCodec],
  ['qdrant.SparseVectorConfig', sparseVectorConfigCodec],
  ['qdrant.OptimizerStatus', optimizerStatusCodec],
  ['qdrant.PayloadIndexParams', payloadIndexParamsCodec],
  ['qdrant.MaxOptimizationThreads', maxOptimizationThreadsCodec],
]);

/** Fields whose REST name is not their proto name, by message type: proto name → REST name. */
const ALIASES: Record<string, Record<string, string>> = {
  'qdrant.PointStruct': { vectors: 'vector' },
  'qdrant.PointVectors': { vectors: 'vector' },
  'qdrant.RetrievedPoint': { vectors: 'vector' },
  'qdrant.ScoredPoint': { vectors: 'vector' },
  'qdrant.CreateCollection': { vectors_config: 'vectors', sparse_vectors_config: 'sparse_vectors' },
  'qdrant.UpdateCollection': { vectors_config: 'vectors', sparse_vectors_config: 'sparse_vectors' },
  'qdrant.CollectionParams': { vectors_config: 'vectors', sparse_vectors_config: 'sparse_vectors' },
  'qdrant.LookupLocation': { collection_name: 'collection', vector_name: 'vector' },
};

/** The one converter between Qdrant's proto messages and its REST JSON. */
export const protoJson = new ProtoJson(CODECS, ALIASES);
