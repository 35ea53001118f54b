import { seg } from '../api.js';
import type { ConsoleContext } from '../context.js';
import { field, h, show } from '../dom.js';
import type { CollectionInfo } from '../types.js';
import { confirmDialog } from './confirm-dialog.js';
import { statusLine } from './errors.js';

/**
 * Indexing progress as the share of vectors already linked into the HNSW index. The counts are of
 * points, some of which have no vector (graph nodes made by Cypher), so only a yellow collection
 * reads its share from them: a green one has indexed every vector it holds.
 */
function progress(info: CollectionInfo): HTMLElement {
  const total = info.vectors_count ?? info.points_count;
  const share = info.status === 'green' || total === 0 ? 1 : Math.min(info.indexed_vectors_count / total, 0.99);
  return h('span', { class: 'progress' }, h('progress', { max: 1, value: share, 'aria-label': `${info.name} indexed` }), ` ${Math.round(share * 100)}%`);
}

function createForm(ctx: ConsoleContext, status: ReturnType<typeof statusLine>): HTMLFormElement {
  const name = h('input', { name: 'name', required: true, pattern: '[A-Za-z0-9_\\-][A-Za-z0-9_.\\-]*', maxlength: 255 });
  const size = h('input', { name: 'size', type: 'number', min: 1, max: 65536, required: true, value: 4 });
  const distance = h('select', { name: 'distance' }, ...['Cosine', 'Dot', 'Euclid', 'Manhattan'].map((d) => h('option', { value: d }, d)));
  const m = h('input', { name: 'm', type: 'number', min: 2, max: 128, placeholder: '16' });
  const ef = h('input', { name: 'ef_construct', type: 'number', min: 4, max: 4096, placeholder: '200' });
  const form = h('form', { class: 'create-collection', 'aria-label': 'Create a collection' }, h('h3', {}, 'Create a collection'), field('Name', name), field('Dimension', size), field('Distance', distance), field('HNSW m', m), field('HNSW ef_construct', ef), h('button', { type: 'submit' }, 'Create'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // The server takes m and ef_construct together; one left empty takes its default.
    const hnsw = m.value || ef.value ? { hnsw_config: { m: Number(m.value || 16), ef_construct: Number(ef.value || 200) } } : {};
    ctx.api
      .put(`/collections/${seg(name.value)}`, { vectors: { size: Number(size.value), distance: distance.value }, ...hnsw })
      .then(async () => {
        await ctx.refreshCollections();
        ctx.go('collections', name.value, `Created collection ${name.value}: add its points on the Points tab.`);
      })
      .catch(status.error);
  });
  return form;
}

/** The collections: a table with counts, status and indexing progress; create, inspect, delete. */
export function collectionsView(ctx: ConsoleContext): HTMLElement {
  const status = statusLine();
  const table = h('tbody');
  const info = h('section', { class: 'collection-info', 'aria-label': 'Collection info' });
  const showInfo = (c: CollectionInfo): void => show(info, h('h3', {}, `Collection ${c.name}`), h('pre', { class: 'json' }, JSON.stringify(c, null, 2)));

  const remove = async (c: CollectionInfo): Promise<void> => {
    if (!(await confirmDialog(`Delete collection ${c.name} and its ${c.points_count} points? This cannot be undone.`, 'Delete'))) return;
    await ctx.api.delete(`/collections/${seg(c.name)}`);
    await ctx.refreshCollections();
    ctx.go('collections', null, `Deleted collection ${c.name}.`);
  };

  // While a collection is still indexing (yellow), the table reads itself again every second.
  let poll: number | undefined;
  ctx.onLeave(() => clearTimeout(poll));
  const load = async (): Promise<void> => {
    clearTimeout(poll);
    const { collections } = await ctx.api.get<{ collections: { name: string }[] }>('/collections');
    const infos = await Promise.all(collections.map((c) => ctx.api.get<CollectionInfo>(`/collections/${seg(c.name)}`)));
    show(
      table,
      ...infos.map((c) =>
        h(
          'tr',
          { 'data-collection': c.name, class: c.name === ctx.collection ? 'current' : '' },
          h('th', { scope: 'row' }, c.name),
          h('td', {}, c.status),
          h('td', { class: 'num' }, c.points_count),
          h('td', {}, progress(c)),
          h('td', {}, `${c.config.params?.vectors?.size ?? '?'} · ${c.config.params?.vectors?.distance ?? '?'}`),
          h(
            'td',
            { class: 'actions' },
            h('button', { type: 'button', onclick: () => ctx.go('points', c.name) }, 'Points'),
            h('button', { type: 'button', onclick: () => showInfo(c) }, 'Info'),
            h('button', { type: 'button', class: 'danger', onclick: () => remove(c).catch(status.error) }, 'Delete'),
          ),
        ),
      ),
    );
    if (infos.length === 0) show(table, h('tr', {}, h('td', { colspan: 6 }, 'No collections yet: create one below.')));
    const current = infos.find((c) => c.name === ctx.collection);
    if (current) showInfo(current);
    if (infos.some((c) => c.status !== 'green')) poll = window.setTimeout(() => load().catch(status.error), 1000);
  };

  load().catch(status.error);
  return h(
    'section',
    { class: 'view collections-view' },
    h('div', { class: 'view-head' }, h('h2', {}, 'Collections'), h('button', { type: 'button', onclick: () => load().catch(status.error) }, 'Refresh')),
    status.element,
    h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, h('tr', {}, ...['Name', 'Status', 'Points', 'Indexed', 'Vectors', ''].map((t) => h('th', { scope: 'col' }, t)))), table)),
    createForm(ctx, status),
    info,
  );
}
