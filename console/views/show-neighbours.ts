import type { ConsoleContext } from '../context.js';
import type { PointId } from '../types.js';
import { messageOf } from './errors.js';

/** Draws the point and its neighbours on the graph tab, and goes there. */
export function showNeighbours(ctx: ConsoleContext, id: PointId): void {
  ctx.go('graph');
  ctx.graph.expand(id).catch((e: unknown) => ctx.notify(messageOf(e), 'error'));
}
