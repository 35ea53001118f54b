import type cytoscape from 'cytoscape';
import { colorOf } from './colors.js';
import { edgeWidth, nodeKey, type GraphEdge } from './graph-model.js';

/**
 * The edges of a large graph as straight lines on one canvas under cytoscape's, redrawn after each
 * frame cytoscape draws: thousands of them cost a few paths, whereas each cytoscape element is
 * styled, measured and drawn on its own.
 */
export class EdgeLayer {
  private readonly canvas = document.createElement('canvas');
  private edges: ReadonlyMap<string, GraphEdge> = new Map();

  constructor(container: HTMLElement, private readonly cy: cytoscape.Core) {
    this.canvas.className = 'edge-layer';
    container.prepend(this.canvas);
    cy.on('render', () => this.draw());
  }

  /** Draws the edges in this map, as it is at each frame, from now on (an empty map: none). */
  show(edges: ReadonlyMap<string, GraphEdge>): void {
    this.edges = edges;
    this.draw();
  }

  private draw(): void {
    const ratio = window.devicePixelRatio || 1;
    const [width, height] = [this.cy.width(), this.cy.height()];
    if (this.canvas.width !== Math.round(width * ratio) || this.canvas.height !== Math.round(height * ratio)) {
      [this.canvas.width, this.canvas.height] = [Math.round(width * ratio), Math.round(height * ratio)];
      [this.canvas.style.width, this.canvas.style.height] = [`${width}px`, `${height}px`];
    }
    const context = this.canvas.getContext('2d')!;
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.clearRect(0, 0, this.canvas.width, this.canvas.height);
    const { x, y } = this.cy.pan();
    const zoom = this.cy.zoom();
    context.setTransform(zoom * ratio, 0, 0, zoom * ratio, x * ratio, y * ratio);
    // One path per colour and width: a stroke each, not one per edge.
    const strokes = new Map<string, { color: string; width: number; path: Path2D }>();
    for (const edge of this.edges.values()) {
      const [color, width] = [colorOf(edge.relation), edgeWidth(edge.weight)];
      let stroke = strokes.get(`${color} ${width}`);
      if (!stroke) strokes.set(`${color} ${width}`, (stroke = { color, width, path: new Path2D() }));
      const from = this.cy.getElementById(nodeKey(edge.from)).position();
      const to = this.cy.getElementById(nodeKey(edge.to)).position();
      stroke.path.moveTo(from.x, from.y);
      stroke.path.lineTo(to.x, to.y);
    }
    context.globalAlpha = 0.8;
    for (const { color, width, path } of strokes.values()) {
      context.strokeStyle = color;
      context.lineWidth = width;
      context.stroke(path);
    }
  }
}
