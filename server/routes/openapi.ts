import Router from '@koa/router';
import { openApiDocument } from '../openapi/document.js';

/** GET /openapi.json: public, like /health; the document is built once, at start-up. */
export function openApiRoutes(version: string): Router {
  const router = new Router();
  const document = JSON.stringify(openApiDocument(version));
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document;
  });
  return router;
}
