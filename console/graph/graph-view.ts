import cytoscape from 'cytoscape';
import type { Api } from '../api.js';
import { field, h, show } from '../dom.js';
import type { PointId } from '../types.js';
import { colorOf } from './colors.js';
import { EdgeLayer } from './edge-layer.js';
import { caption, edgeKey, edgeWidth, nodeKey, type GraphEdge, type GraphNode } from './graph-model.js';
import { grid } from './grid.js';
import { fetchNeighbourhood } from './neighbourhood.js';
import { fitViewport } from './viewport.js';

/**
 * Above this many nodes a force layout costs seconds, and so do labels and edges as cytoscape
 * elements: a grid, LARGE_STYLE, and the edges on an EdgeLayer.
 */
const LARGE_GRAPH = 300;
const MARGIN = 30;
/** Fitting never zooms in further: one or two nodes would otherwise fill the canvas at the wheel's limit (4). */
const FIT_ZOOM = 1.5;
const PICKER_LIMIT = 2000;

const STYLE: cytoscape.StylesheetJson = [
  {
    selector: 'node',
    style: { 'background-color': 'data(color)', label: 'data(caption)', 'font-size': 10, color: '#222', 'text-valign': 'bottom', 'text-margin-y': 3, width: 18, height: 18, 'min-zoomed-font-size': 7 },
  },
  { selector: 'node:selected', style: { 'border-width': 3, 'border-color': '#111' } },
  {
    selector: 'edge',
    style: { width: 'data(width)', 'line-color': 'data(color)', 'target-arrow-color': 'data(color)', 'target-arrow-shape': 'triangle', 'curve-style': 'bezier', 'arrow-scale': 0.8, opacity: 0.8 },
  },
];

/** One property and no label to measure: cytoscape styles and draws thousands of these in a frame. */
const LARGE_STYLE: cytoscape.StylesheetJson = [
  { selector: 'node', style: { 'background-color': 'data(color)' } },
  { selector: 'node:selected', style: { 'border-width': 3, 'border-color': '#111' } },
];

/**
 * A graph drawn with cytoscape: nodes coloured by their first label, edges by relation with their
 * weight as width. Clicking a node (or choosing it in the node list) shows it and draws its
 * neighbours; drag, wheel-zoom and Fit work as usual.
 */
export class GraphView {
  readonly element: HTMLElement;
  private readonly cy: cytoscape.Core;
  private readonly nodes = new Map<string, GraphNode>();
  private readonly edges = new Map<string, GraphEdge>();
  /** Past LARGE_GRAPH nodes: the edges are on edgeLayer, not in cy. */
  private large = false;
  private readonly edgeLayer: EdgeLayer;
  private readonly summary = h('p', { class: 'graph-summary', role: 'status' });
  private readonly legend = h('ul', { class: 'legend', 'aria-label': 'Labels and relations' });
  private readonly picker = h('select', { 'aria-label': 'Nodes in the graph' });
  private readonly details = h('div', { class: 'node-details' });
  private readonly canvas = h('div', { class: 'graph-canvas', tabindex: 0, 'aria-label': 'Graph canvas' });

  constructor(private readonly api: Api, private readonly collection: () => string | null, onError: (error: unknown) => void) {
    this.picker.addEventListener('change', () => this.open(this.picker.value).catch(onError));
    const toolbar = h(
      'div',
      { class: 'toolbar' },
      h('button', { type: 'button', onclick: () => this.fit() }, 'Fit'),
      h('button', { type: 'button', onclick: () => this.layout() }, 'Layout'),
      h('button', { type: 'button', onclick: () => this.clear() }, 'Clear'),
      field('Node', this.picker),
      this.summary,
    );
    this.element = h('div', { class: 'graph-view' }, toolbar, h('div', { class: 'graph-body' }, this.canvas, h('aside', { class: 'graph-side' }, this.legend, this.details)));
    // Textures and hidden edges while panning or zooming keep thousands of elements smooth.
    this.cy = cytoscape({ container: this.canvas, style: STYLE, layout: { name: 'preset' }, maxZoom: 4, minZoom: 0.02, textureOnViewport: true, hideEdgesOnViewport: true });
    this.edgeLayer = new EdgeLayer(this.canvas, this.cy);
    this.cy.on('tap', 'node', (event) => this.open(event.target.id() as string).catch(onError));
    this.updateSummary();
  }

  /** Adds nodes and edges (an edge only when both ends are drawn); answers the keys of new nodes. */
  add(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): string[] {
    // One batch: cytoscape styles the new elements once, when it next draws.
    this.cy.startBatch();
    try {
      return this.addElements(nodes, edges);
    } finally {
      this.cy.endBatch();
    }
  }

  private addElements(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): string[] {
    const added: cytoscape.ElementDefinition[] = [];
    const fresh: string[] = [];
    for (const node of nodes) {
      const key = nodeKey(node.id);
      this.nodes.set(key, node);
      const data = { id: key, caption: caption(node), color: colorOf(node.labels[0]) };
      if (this.cy.hasElementWithId(key)) this.cy.getElementById(key).data(data);
      else {
        added.push({ group: 'nodes', data });
        fresh.push(key);
      }
    }
    // The style before the add, so that a switch does not restyle the new elements.
    this.useStyle();
    const addedEdges = new Map<string, cytoscape.ElementDefinition>();
    for (const edge of edges) {
      if (!this.nodes.has(nodeKey(edge.from)) || !this.nodes.has(nodeKey(edge.to))) continue;
      const id = edgeKey(edge);
      this.edges.set(id, edge);
      if (this.large) continue;
      const width = edgeWidth(edge.weight);
      if (this.cy.hasElementWithId(id)) this.cy.getElementById(id).data('width', width);
      else addedEdges.set(id, { group: 'edges', data: { id, source: nodeKey(edge.from), target: nodeKey(edge.to), relation: edge.relation, color: colorOf(edge.relation), width } });
    }
    this.cy.add([...added, ...addedEdges.values()]);
    this.edgeLayer.show(this.large ? this.edges : new Map());
    this.updateSummary();
    return fresh;
  }

  /** Replaces the graph with these nodes and edges, laid out and fitted. */
  replace(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): void {
    this.clear();
    this.add(nodes, edges);
    this.layout();
  }

  /** Draws a point and its neighbours, placed around it, and selects it. */
  async expand(id: PointId): Promise<void> {
    const collection = this.collection();
    if (collection === null) return;
    const { nodes, edges } = await fetchNeighbourhood(this.api, collection, id);
    const center = nodeKey(id);
    const wasEmpty = this.nodes.size === 0;
    const fresh = this.add(nodes, edges).filter((key) => key !== center);
    const origin = this.cy.getElementById(center).position();
    const radius = 60 + fresh.length * 6;
    fresh.forEach((key, i) => {
      const angle = (2 * Math.PI * i) / fresh.length;
      this.cy.getElementById(key).position({ x: origin.x + radius * Math.cos(angle), y: origin.y + radius * Math.sin(angle) });
    });
    if (wasEmpty) this.fit();
    this.showDetails(center);
  }

  fit(): void {
    this.cy.resize();
    this.cy.fit(undefined, MARGIN);
    if (this.cy.zoom() > FIT_ZOOM) this.cy.zoom({ level: FIT_ZOOM, renderedPosition: { x: this.cy.width() / 2, y: this.cy.height() / 2 } });
  }

  layout(): void {
    this.cy.resize();
    if (this.nodes.size <= LARGE_GRAPH) {
      const cose = this.cy.layout({ name: 'cose', animate: false, fit: false, randomize: false });
      cose.one('layoutstop', () => this.fit());
      cose.run();
      return;
    }
    const [width, height] = [this.cy.width(), this.cy.height()];
    const { at, box } = grid(this.nodes.size, width / Math.max(1, height));
    this.cy.batch(() => this.cy.nodes().positions((_, i) => at(i)));
    this.cy.viewport(fitViewport(box, width, height, MARGIN, this.cy.minZoom(), FIT_ZOOM));
  }

  clear(): void {
    this.cy.elements().remove();
    this.nodes.clear();
    this.edges.clear();
    show(this.details);
    this.updateSummary();
  }

  /** Stops drawing and drops cytoscape's listeners on the window. */
  destroy(): void {
    this.cy.destroy();
  }

  /** cytoscape needs its container's size again after being hidden. */
  shown(): void {
    this.cy.resize();
  }

  /** Selects a drawn node, shows it, and draws its neighbours. */
  private async open(key: string): Promise<void> {
    const node = this.nodes.get(key);
    if (!node) return;
    this.cy.$(':selected').unselect();
    this.cy.getElementById(key).select();
    this.showDetails(key);
    await this.expand(node.id);
  }

  private showDetails(key: string): void {
    const node = this.nodes.get(key);
    if (!node) return;
    this.picker.value = key;
    const edges = [...this.edges.values()].filter((e) => nodeKey(e.from) === key || nodeKey(e.to) === key);
    show(
      this.details,
      h('h3', {}, `Node ${node.id}`),
      h('p', {}, node.labels.length ? node.labels.map((l) => `:${l}`).join(' ') : 'no labels'),
      h('pre', { class: 'json' }, JSON.stringify(node.properties, null, 2)),
      h('p', {}, `${edges.length} edges drawn`),
      h('ul', {}, ...edges.map((e) => h('li', {}, `${e.from} -[:${e.relation}]-> ${e.to}`))),
    );
  }

  /** Nodes are only removed all at once (clear), so a graph turns large only by growing, with its edges still in cy. */
  private useStyle(): void {
    const large = this.nodes.size > LARGE_GRAPH;
    if (large === this.large) return;
    this.large = large;
    if (large) this.cy.edges().remove();
    this.cy.style(large ? LARGE_STYLE : STYLE);
  }

  private updateSummary(): void {
    this.summary.textContent = `${this.nodes.size} nodes, ${this.edges.size} edges`;
    const labels = new Set<string>();
    const relations = new Set<string>();
    for (const node of this.nodes.values()) labels.add(node.labels[0] ?? '(no label)');
    for (const edge of this.edges.values()) relations.add(edge.relation);
    show(
      this.legend,
      ...[...labels].sort().map((l) => h('li', {}, h('span', { class: 'swatch', style: `background:${colorOf(l === '(no label)' ? undefined : l)}` }), `:${l}`)),
      ...[...relations].sort().map((r) => h('li', {}, h('span', { class: 'swatch line', style: `background:${colorOf(r)}` }), `[:${r}]`)),
    );
    // The list is the keyboard's way to a node; past a few thousand options it is slow to build and of no use.
    const listed = [...this.nodes.entries()].slice(0, PICKER_LIMIT);
    show(this.picker, h('option', { value: '' }, 'Choose a node…'), ...listed.map(([key, node]) => h('option', { value: key }, caption(node) === String(node.id) ? String(node.id) : `${node.id} ${caption(node)}`)));
  }
}
