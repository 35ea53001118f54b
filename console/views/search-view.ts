import { seg } from '../api.js';
import type { ConsoleContext } from '../context.js';
import { field, h, shortJson, show } from '../dom.js';
import { FilterBuilder } from '../filter-builder.js';
import { idOf, vectorOf } from '../input.js';
import type { PointId, ScoredPoint } from '../types.js';
import { statusLine } from './errors.js';
import { noCollection } from './no-collection.js';
import { showNeighbours } from './show-neighbours.js';

/** The query: a point id (its vector, the point itself left out) or a pasted vector. */
const queryOf = (mode: string, text: string): PointId | number[] => (mode === 'id' ? idOf(text) : vectorOf(text));

/** Vector search (POST /points/query) by a point's vector or a pasted one, with limit, ef, threshold and filter. */
export function searchView(ctx: ConsoleContext): HTMLElement {
  const collection = ctx.collection;
  if (collection === null) return noCollection(ctx, 'Search');
  const status = statusLine();
  const mode = h('select', { name: 'mode' }, h('option', { value: 'id' }, 'the vector of point'), h('option', { value: 'vector' }, 'this vector'));
  const query = h('input', { name: 'query', required: true, placeholder: 'a point id, or [0.1, 0.2, …]', class: 'wide' });
  const limit = h('input', { name: 'limit', type: 'number', min: 1, max: 10000, value: 10 });
  const ef = h('input', { name: 'ef', type: 'number', min: 1, max: 10000, placeholder: '100' });
  const threshold = h('input', { name: 'score_threshold', type: 'number', step: 'any', placeholder: 'none' });
  const filter = new FilterBuilder();
  const results = h('tbody');

  const run = async (): Promise<void> => {
    const body = {
      query: queryOf(mode.value, query.value),
      limit: Number(limit.value),
      ef: ef.value ? Number(ef.value) : undefined,
      score_threshold: threshold.value ? Number(threshold.value) : undefined,
      filter: filter.filter(),
      with_payload: true,
    };
    const hits = await ctx.api.post<ScoredPoint[]>(`/collections/${seg(collection)}/points/query`, body);
    status.info(`${hits.length} results`);
    show(
      results,
      ...hits.map((p) =>
        h(
          'tr',
          { 'data-id': String(p.id) },
          h('td', { class: 'id' }, String(p.id)),
          h('td', { class: 'num' }, p.score.toFixed(4)),
          h('td', {}, (p.labels ?? []).join(', ')),
          h('td', { class: 'payload' }, shortJson(p.payload ?? {})),
          h('td', {}, h('button', { type: 'button', onclick: () => showNeighbours(ctx, p.id) }, 'Show neighbours in the graph')),
        ),
      ),
    );
  };

  const form = h(
    'form',
    { class: 'search-form', 'aria-label': 'Search' },
    h('div', { class: 'row' }, field('Search by', mode), field('Query', query)),
    h('div', { class: 'row' }, field('Limit', limit), field('ef', ef), field('Score threshold', threshold)),
    filter.element,
    h('button', { type: 'submit' }, 'Search'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // A failed search leaves no results of the one before, which would read as its answer.
    run().catch((e: unknown) => {
      show(results);
      status.error(e);
    });
  });
  return h(
    'section',
    { class: 'view search-view' },
    h('h2', {}, `Search ${collection}`),
    form,
    status.element,
    h('div', { class: 'table-wrap' }, h('table', { class: 'results' }, h('thead', {}, h('tr', {}, ...['Id', 'Score', 'Labels', 'Payload', ''].map((t) => h('th', { scope: 'col' }, t)))), results)),
  );
}
