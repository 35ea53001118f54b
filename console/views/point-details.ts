import { seg, type Api } from '../api.js';
import { h } from '../dom.js';
import type { Neighbor, Point, PointId } from '../types.js';
import { pointEdits, type PointEdits } from './point-edits.js';

/** Dimension, norm and the first values: enough to tell vectors apart without printing them. */
export function vectorSummary(vector: number[] | null | undefined): string {
  if (!vector) return 'no vector (a graph node only)';
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  const head = vector.slice(0, 8).map((x) => x.toFixed(3)).join(', ');
  return `${vector.length} dimensions, norm ${norm.toFixed(3)}: [${head}${vector.length > 8 ? ', …' : ''}]`;
}

function edgeList(title: string, arrow: (n: Neighbor) => string, neighbors: Neighbor[]): HTMLElement {
  return h('div', {}, h('h4', {}, `${title} (${neighbors.length})`), h('ul', { class: 'edges' }, ...neighbors.map((n) => h('li', {}, `${arrow(n)} (weight ${n.weight})`))));
}

/** One point: labels, payload, its vector summarised, its edges out and in, and what can change them. */
export async function pointDetails(api: Api, collection: string, id: PointId, showInGraph: (id: PointId) => void, edits: PointEdits): Promise<HTMLElement> {
  const base = `/collections/${seg(collection)}`;
  const [points, outgoing, incoming] = await Promise.all([
    api.post<Point[]>(`${base}/points`, { ids: [id], with_payload: true, with_vector: true }),
    api.get<{ neighbors: Neighbor[] }>(`${base}/graph/neighbors/${seg(id)}?direction=outgoing`),
    api.get<{ neighbors: Neighbor[] }>(`${base}/graph/neighbors/${seg(id)}?direction=incoming`),
  ]);
  const point = points[0];
  if (!point) return h('p', {}, `Point ${id} is gone.`);
  return h(
    'section',
    { class: 'point-details', 'aria-label': `Point ${id}` },
    h('h3', {}, `Point ${point.id}`),
    h('p', {}, 'Labels: ', point.labels?.length ? point.labels.join(', ') : 'none'),
    h('p', { class: 'vector-summary' }, 'Vector: ', vectorSummary(point.vector)),
    h('pre', { class: 'json' }, JSON.stringify(point.payload ?? {}, null, 2)),
    edgeList('Edges out', (n) => `-[:${n.relation}]-> ${n.id}`, outgoing.neighbors),
    edgeList('Edges in', (n) => `<-[:${n.relation}]- ${n.id}`, incoming.neighbors),
    h('button', { type: 'button', onclick: () => showInGraph(point.id) }, 'Show neighbours in the graph'),
    pointEdits(api, collection, point.id, edits),
  );
}
