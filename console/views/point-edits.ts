import { seg, type Api } from '../api.js';
import { field, h } from '../dom.js';
import { idOf } from '../input.js';
import type { PointId } from '../types.js';
import { confirmDialog } from './confirm-dialog.js';
import { statusLine } from './errors.js';

/** What the point details can change: an edge out of the point, or the point itself gone. */
export interface PointEdits {
  /** An edge was added: the details read the point again. */
  edgeAdded(id: PointId): void;
  deleted(id: PointId): void;
}

/** An edge out of the point (POST /graph/edges) and Delete point (after a confirmation), with a status line of their own. */
export function pointEdits(api: Api, collection: string, id: PointId, edits: PointEdits): HTMLElement {
  const base = `/collections/${seg(collection)}`;
  const status = statusLine();
  const to = h('input', { name: 'to', required: true, placeholder: 'a point id' });
  const relation = h('input', { name: 'relation', required: true, placeholder: 'CITES' });
  const weight = h('input', { name: 'weight', type: 'number', step: 'any', value: 1 });
  const form = h('form', { class: 'row', 'aria-label': 'Add an edge' }, field('Edge to', to), field('Relation', relation), field('Weight', weight), h('button', { type: 'submit' }, 'Add edge'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    api
      .post(`${base}/graph/edges`, { from_id: id, to_id: idOf(to.value), relation: relation.value.trim(), weight: Number(weight.value) })
      .then(() => edits.edgeAdded(id))
      .catch(status.error);
  });
  const remove = async (): Promise<void> => {
    if (!(await confirmDialog(`Delete point ${id} and its edges? This cannot be undone.`, 'Delete'))) return;
    await api.post(`${base}/points/delete`, { points: [id] });
    edits.deleted(id);
  };
  return h('div', { class: 'point-edits' }, h('h4', {}, 'Add an edge out'), form, h('button', { type: 'button', class: 'danger', onclick: () => remove().catch(status.error) }, 'Delete point'), status.element);
}
