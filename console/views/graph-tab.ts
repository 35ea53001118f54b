import { seg } from '../api.js';
import type { ConsoleContext } from '../context.js';
import { graphOfRows } from '../cypher/result-graph.js';
import { field, h } from '../dom.js';
import type { CypherResult } from '../types.js';
import { statusLine } from './errors.js';
import { noCollection } from './no-collection.js';

/** The explorable graph: start from a point, or draw a sample of relationships; click nodes to grow it. */
export function graphTab(ctx: ConsoleContext): HTMLElement {
  const collection = ctx.collection;
  if (collection === null) return noCollection(ctx, 'Graph');
  const status = statusLine();
  const start = h('input', { name: 'start', required: true, placeholder: 'a point id' });
  const sample = h('input', { name: 'sample', type: 'number', min: 1, max: 100000, value: 200 });
  const fromPoint = h('form', { class: 'row', 'aria-label': 'Start from a point' }, field('Start from point', start), h('button', { type: 'submit' }, 'Show neighbourhood'));
  fromPoint.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = /^\d+$/.test(start.value.trim()) ? Number(start.value.trim()) : start.value.trim();
    ctx.graph.expand(id).catch(status.error);
  });
  const drawSample = h('form', { class: 'row', 'aria-label': 'Draw relationships' }, field('Relationships to draw', sample), h('button', { type: 'submit' }, 'Draw'));
  drawSample.addEventListener('submit', (event) => {
    event.preventDefault();
    ctx.api
      .post<CypherResult>(`/collections/${seg(collection)}/graph/query`, { query: 'MATCH (a)-[r]->(b) RETURN a, r, b LIMIT $limit', parameters: { limit: Number(sample.value) } })
      .then((result) => {
        const { nodes, edges } = graphOfRows(result.rows);
        ctx.graph.replace(nodes, edges);
        if (edges.length === 0) status.info(`${collection} has no relationships yet: add one from a point's details (Points) or with Cypher (CREATE).`);
        else status.clear();
      })
      .catch(status.error);
  });
  return h('section', { class: 'view graph-tab' }, h('h2', {}, `Graph of ${collection}`), h('div', { class: 'row' }, fromPoint, drawSample), status.element, ctx.graph.element);
}
