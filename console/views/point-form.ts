import { seg, type Api } from '../api.js';
import { field, h } from '../dom.js';
import { idOf, vectorOf } from '../input.js';
import type { PointId } from '../types.js';
import type { statusLine } from './errors.js';

/** A payload typed as a JSON object; empty is no payload. */
function payloadOf(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`payload: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('payload must be a JSON object, e.g. {"title": "Ada"}');
  return value as Record<string, unknown>;
}

/**
 * Adds one point (or replaces the point with its id) through PUT /points: the way a new
 * collection gets its first points without leaving the console. Open from the start when the
 * collection is empty.
 */
export function pointForm(api: Api, collection: string, status: ReturnType<typeof statusLine>, saved: (id: PointId) => Promise<void>): HTMLDetailsElement {
  const id = h('input', { name: 'id', required: true, placeholder: '7, or a UUID' });
  const vector = h('input', { name: 'vector', required: true, placeholder: '0.1, 0.2, 0.3, …', class: 'wide' });
  const labels = h('input', { name: 'labels', placeholder: 'Article, Draft' });
  const payload = h('textarea', { name: 'payload', rows: 3, spellcheck: false, placeholder: '{"title": "Ada", "year": 1843}' });
  const form = h(
    'form',
    { class: 'point-form', 'aria-label': 'Add a point' },
    h('div', { class: 'row' }, field('Id', id), field('Vector', vector), field('Labels (comma-separated)', labels)),
    field('Payload (JSON)', payload),
    h('button', { type: 'submit' }, 'Save point'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const save = async (): Promise<void> => {
      const point = {
        id: idOf(id.value),
        vector: vectorOf(vector.value),
        payload: payloadOf(payload.value),
        labels: labels.value.split(',').map((l) => l.trim()).filter((l) => l !== ''),
      };
      await api.put(`/collections/${seg(collection)}/points`, { points: [point] });
      await saved(point.id);
      status.info(`Saved point ${point.id}.`);
    };
    save().catch(status.error);
  });
  return h('details', { class: 'point-form-box' }, h('summary', {}, 'Add or replace a point'), form);
}
