import { seg } from '../api.js';
import type { ConsoleContext } from '../context.js';
import { field, h, shortJson, show } from '../dom.js';
import { FilterBuilder } from '../filter-builder.js';
import type { Point, PointId } from '../types.js';
import { statusLine } from './errors.js';
import { pointDetails } from './point-details.js';
import { pointForm } from './point-form.js';
import { noCollection } from './no-collection.js';
import { showNeighbours } from './show-neighbours.js';

/** The points of a collection, a page at a time in id order (scroll), with a filter; a row opens its details. */
export function pointsView(ctx: ConsoleContext): HTMLElement {
  const collection = ctx.collection;
  if (collection === null) return noCollection(ctx, 'Points');
  const status = statusLine();
  const filter = new FilterBuilder();
  const pageSize = h('select', { 'aria-label': 'Points per page' }, ...[10, 25, 50, 100].map((n) => h('option', { value: n }, n)));
  const body = h('tbody');
  const details = h('div', { class: 'details-pane' });
  const pageInfo = h('span', { class: 'page-info' });
  // Offsets of the pages before this one, so Previous can go back: scroll only walks forward.
  const previous: (PointId | null)[] = [];
  let offset: PointId | null = null;
  let next: PointId | null = null;
  const prevButton = h('button', { type: 'button', onclick: () => void page(previous.pop() ?? null, false) }, 'Previous');
  const nextButton = h('button', { type: 'button', onclick: () => void page(next, true) }, 'Next');

  const open = (id: PointId): void => {
    const edits = {
      edgeAdded: open,
      // The list reads itself again (its status line cleared), then says what went.
      deleted: (gone: PointId) => {
        show(details);
        void reload().then(() => status.info(`Deleted point ${gone}.`));
      },
    };
    pointDetails(ctx.api, collection, id, (pid) => showNeighbours(ctx, pid), edits)
      .then((el) => show(details, el))
      .catch(status.error);
  };

  const page = async (from: PointId | null, forward: boolean): Promise<void> => {
    try {
      const f = filter.filter();
      const [result, counted] = await Promise.all([
        ctx.api.post<{ points: Point[]; next_page_offset: PointId | null }>(`/collections/${seg(collection)}/points/scroll`, { limit: Number(pageSize.value), offset: from, filter: f, with_payload: true }),
        ctx.api.post<{ count: number }>(`/collections/${seg(collection)}/points/count`, { filter: f }),
      ]);
      if (forward && from !== null) previous.push(offset);
      offset = from;
      next = result.next_page_offset;
      prevButton.disabled = previous.length === 0;
      nextButton.disabled = next === null;
      pageInfo.textContent = `${counted.count === 1 ? '1 point' : `${counted.count} points`}${f ? (counted.count === 1 ? ' matches' : ' match') : ''}; page ${previous.length + 1}`;
      show(
        body,
        ...result.points.map((p) =>
          h(
            'tr',
            { 'data-id': String(p.id) },
            h('td', { class: 'id' }, h('button', { type: 'button', class: 'link', onclick: () => open(p.id) }, String(p.id))),
            h('td', {}, (p.labels ?? []).join(', ')),
            h('td', { class: 'payload' }, shortJson(p.payload ?? {})),
          ),
        ),
      );
      if (result.points.length === 0) show(body, h('tr', {}, h('td', { colspan: 3 }, f ? 'No points match the filter.' : 'No points yet: add one above, upsert them through the API, or import a .vgdb file (Export / import).')));
      if (counted.count === 0 && !f) adding.open = true;
      status.clear();
    } catch (e) {
      status.error(e);
    }
  };
  const reload = (): Promise<void> => {
    previous.length = 0;
    return page(null, false);
  };
  // A saved point shows in the list (from the first page) and in the details pane.
  const adding = pointForm(ctx.api, collection, status, (id) => reload().then(() => open(id)));
  pageSize.addEventListener('change', () => void reload());

  void reload();
  return h(
    'section',
    { class: 'view points-view' },
    h('div', { class: 'view-head' }, h('h2', {}, `Points of ${collection}`)),
    adding,
    h('form', { class: 'filter-form', onsubmit: (e: Event) => (e.preventDefault(), void reload()) }, filter.element, h('button', { type: 'submit' }, 'Apply filter')),
    status.element,
    h('div', { class: 'toolbar' }, prevButton, nextButton, field('Per page', pageSize), pageInfo),
    h('div', { class: 'split' }, h('div', { class: 'table-wrap' }, h('table', { class: 'points' }, h('thead', {}, h('tr', {}, ...['Id', 'Labels', 'Payload'].map((t) => h('th', { scope: 'col' }, t)))), body)), details),
  );
}
