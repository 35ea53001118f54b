export interface Position {
  x: number;
  y: number;
}

export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/**
 * The zoom and pan that show `box` centred on a `width` x `height` canvas with `margin` pixels
 * around, the zoom kept within [minZoom, maxZoom]: what cy.fit does, from a box known in advance
 * instead of one cytoscape finds by styling and measuring every element.
 */
export function fitViewport(box: Box, width: number, height: number, margin: number, minZoom: number, maxZoom: number): { zoom: number; pan: Position } {
  const fit = Math.min((width - 2 * margin) / Math.max(1, box.x2 - box.x1), (height - 2 * margin) / Math.max(1, box.y2 - box.y1));
  const zoom = Math.min(maxZoom, Math.max(minZoom, fit));
  return { zoom, pan: { x: width / 2 - ((box.x1 + box.x2) / 2) * zoom, y: height / 2 - ((box.y1 + box.y2) / 2) * zoom } };
}
