import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { openApiDocument } from '../../server/openapi/document.js';

type Json = Record<string, any>;

const DOCUMENT_ID = 'https://vectorgraphdb.test/openapi.json';
const COMPONENTS = '#/components/schemas/';

const document = openApiDocument('test') as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsPlugin as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: DOCUMENT_ID, $defs: {}, components: document.components });

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Json;
}

const routes: Route[] = Object.entries(document.paths as Json).flatMap(([template, item]) =>
  Object.entries(item as Json).map(([method, op]) => ({
    method: method.toUpperCase(),
    template,
    pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
    responses: (op as Json).responses,
  })),
);

const compiled = new Map<object, ValidateFunction>();

function validatorFor(schema: Json): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    const ref = typeof schema.$ref === 'string' && schema.$ref.startsWith(COMPONENTS) ? `${DOCUMENT_ID}${schema.$ref}` : undefined;
    validate = ajv.compile(ref ? { $ref: ref } : schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** The documented operation for a request, or undefined when the document has none. */
function operationFor(method: string, path: string): Route | undefined {
  const bare = path.split('?')[0]!;
  return routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(bare));
}

/**
 * Throws when a JSON response differs from what the OpenAPI document says the operation
 * answers with that status (or, for a request no operation matches, from the error body).
 */
export function checkResponse(method: string, path: string, status: number, body: unknown): void {
  const route = operationFor(method, path);
  const where = `${method} ${path} ${status}`;
  let schema: Json | undefined;
  if (route) schema = (route.responses[String(status)] ?? route.responses.default)?.content?.['application/json']?.schema;
  else if (status >= 400) schema = { $ref: `${COMPONENTS}ErrorBody` };
  if (!schema) throw new Error(`the OpenAPI document has no JSON response for ${where}`);
  const validate = validatorFor(schema);
  if (!validate(body)) {
    throw new Error(`response does not match the OpenAPI document: ${where}${route ? ` (${route.template})` : ''}: ${ajv.errorsText(validate.errors)}`);
  }
}

/** Whether `body` fits the JSON request body the operation documents. */
export function bodyMatchesDocument(operation: Json, body: unknown): boolean {
  return validatorFor(operation.requestBody.content['application/json'].schema)(body) as boolean;
}
