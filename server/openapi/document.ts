import * as z from 'zod';
import { errorBody } from '../../query/api/schemas/responses.js';
import { OPERATIONS, type Operation } from './operations.js';

type Json = Record<string, unknown>;

const COMPONENTS = '#/components/schemas/';
const EXPORT_HEADERS = {
  'X-Service-Format-Version': 'the binary format version of the file',
  'X-Service-Point-Count': 'points in the file',
  'X-Service-Dimension': 'the vector dimension',
  'X-Service-Log-Head': "the log's chain hash (hex) at the operation the file was taken at, as in its header (absent for a log that keeps none)",
};

const ERROR_MEANINGS: Record<number, string> = {
  400: 'bad input: the message names the field, what it must be and the value sent',
  401: 'missing or wrong credentials (when SERVICE_API_KEYS or SERVICE_BEARER_TOKENS is set)',
  404: 'no such collection or point',
  409: 'the collection already exists',
  410: 'the operations asked for were compacted away: the message names the oldest operation_id still in the log (also in X-Oldest-Operation-Id)',
  413: 'the body is too large (JSON: SERVICE_JSON_LIMIT_BYTES; import: 1 GiB)',
  415: 'a body not sent as application/json',
  429: 'rate limited (SERVICE_RATE_LIMIT): Retry-After says when to try again',
  503: 'not ready yet (the log is being replayed), or writes stopped after a log failure',
  504: 'the min_operation_id asked for (consistency or X-Min-Operation-Id) was not applied within the timeout',
};

/** The components every schema in the document comes from: each zod schema with an `id` in its meta. */
function componentSchemas(): Json {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `${COMPONENTS}${id}`,
  }) as { schemas: Record<string, Json> };
  const out: Json = {};
  for (const [name, { $schema: _schema, $id: _id, ...schema }] of Object.entries(schemas)) out[name] = schema;
  return out;
}

function refTo(schema: z.ZodType): Json {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('a schema in the OpenAPI document needs an id in its meta');
  return { $ref: `${COMPONENTS}${id}` };
}

const jsonContent = (schema: Json) => ({ 'application/json': { schema } });
const errorResponse = (description: string) => ({ description, content: jsonContent(refTo(errorBody)) });

function successResponse(op: Operation): Json {
  if (op.answer === 'prometheus-text') {
    return { description: 'Prometheus text exposition format', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } };
  }
  if (op.answer === 'export-file') {
    const headers: Record<string, Json> = { 'Content-Disposition': { description: 'attachment; filename="<collection>.vgdb"', schema: { type: 'string' } } };
    for (const [name, description] of Object.entries(EXPORT_HEADERS)) headers[name] = { description, schema: { type: 'integer' } };
    return { description: 'the collection as a binary file (points, edges and config)', headers, content: { 'application/octet-stream': {} } };
  }
  if (op.answer === 'change-feed') {
    const change = {
      type: 'object',
      required: ['operation_id', 'collection', 'kind', 'ids', 'data'],
      properties: {
        operation_id: { type: 'integer' },
        collection: { type: ['string', 'null'] },
        kind: { type: 'string', description: 'the event type: create_collection, upsert_points, delete_points, upsert_edge, import_collection, graph_write, ...' },
        ids: { type: 'array', items: { type: ['integer', 'string'] }, description: 'the point ids the change names' },
        data: { type: 'object', description: "the event's own fields (vectors as arrays)" },
      },
    };
    return {
      description: 'one change per line (NDJSON), or Server-Sent Events (id: operation_id, event: change) when the client accepts text/event-stream',
      content: { 'application/x-ndjson': { schema: change }, 'text/event-stream': { schema: { type: 'string' } } },
    };
  }
  if (op.answer === 'snapshot-file') return { description: 'the snapshot: an export file of the collection', content: { 'application/octet-stream': {} } };
  if (op.answer === 'openapi-document') return { description: 'this document', content: jsonContent({ type: 'object', required: ['openapi', 'paths'] }) };
  return { description: op.summary, content: jsonContent(refTo(op.answer)) };
}

function parametersOf(op: Operation): Json[] {
  const path = [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) =>
    name === 'field_name'
      ? { name, in: 'path', required: true, description: 'a payload key', schema: { type: 'string', minLength: 1 } }
      : name === 'snapshot_name'
        ? { name, in: 'path', required: true, description: 'a snapshot name, as create answered it', schema: { type: 'string' } }
        : name === 'point_id'
      ? { name, in: 'path', required: true, description: 'a point id: an integer or a UUID', schema: { anyOf: [{ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, { type: 'string', format: 'uuid' }] } }
      : { name, in: 'path', required: true, description: '1 to 255 characters from A-Z a-z 0-9 _ - . not starting with "."', schema: { type: 'string', pattern: '^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,254}$' } },
  );
  return [...path, ...(op.query ?? []).map((q) => ({ in: 'query', required: q.required ?? false, ...q }))];
}

function requestBodyOf(op: Operation): Json | undefined {
  if (!op.body) return undefined;
  const content =
    op.body === 'export-file'
      ? { 'application/octet-stream': {} }
      : op.body === 'snapshot-upload'
        ? { 'multipart/form-data': { schema: { type: 'object', required: ['snapshot'], properties: { snapshot: { type: 'string', format: 'binary' } } } } }
        : jsonContent(refTo(op.body));
  return { required: op.bodyRequired ?? false, content };
}

function operationObject(op: Operation): Json {
  const responses: Json = { '200': successResponse(op) };
  const errors = op.isPublic ? op.errors : [...op.errors, 401, 503];
  if (op.body && op.body !== 'export-file' && op.body !== 'snapshot-upload') errors.push(413, 415);
  for (const code of [...new Set(errors)].sort((a, b) => a - b)) responses[String(code)] = errorResponse(ERROR_MEANINGS[code] ?? 'error');
  responses.default = errorResponse('any other error (414 URL too long, 429 rate limited, 500 internal: the message gives a request id to find in the log)');
  const operation: Json = { operationId: op.operationId, summary: op.summary, tags: [op.tag] };
  const parameters = parametersOf(op);
  if (parameters.length) operation.parameters = parameters;
  const body = requestBodyOf(op);
  if (body) operation.requestBody = body;
  operation.responses = responses;
  if (op.isPublic) operation.security = [];
  return operation;
}

/** The OpenAPI 3.1 document of every endpoint, request bodies from the schemas that check them. */
export function openApiDocument(version: string): Json {
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'vectorgraphdb',
      version,
      description: 'A durable hybrid vector + graph database. Successful JSON answers are {status: "ok", result, time}; errors are {status: "error", message, code}.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    tags: ['collections', 'points', 'search', 'graph', 'transfer', 'changes', 'service'].map((name) => ({ name })),
    security: [{}, { ApiKey: [] }, { Bearer: [] }, { QdrantApiKey: [] }],
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Authorization: ApiKey <key>, a key from SERVICE_API_KEYS' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'a token from SERVICE_BEARER_TOKENS' },
        QdrantApiKey: { type: 'apiKey', in: 'header', name: 'api-key', description: "Qdrant clients' header: a key from SERVICE_API_KEYS" },
      },
    },
  };
}
