import type { Api } from './api.js';
import type { GraphView } from './graph/graph-view.js';

export const TABS = ['collections', 'points', 'search', 'cypher', 'graph', 'transfer'] as const;
export type Tab = (typeof TABS)[number];

/** What every view is handed: the API, the collection chosen in the header, and the ways to move on. */
export interface ConsoleContext {
  api: Api;
  collection: string | null;
  /** Shows a tab, optionally for another collection, and a message that outlives the move (what was just done). */
  go(tab: Tab, collection?: string | null, message?: string): void;
  /** Reads the collection list again (after a create, delete or import). */
  refreshCollections(): Promise<void>;
  /** The graph tab's view, which search and point details add to. */
  graph: GraphView;
  notify(message: string, kind?: 'info' | 'error'): void;
  /** Runs `cleanup` when the page moves to another view (a graph of the view's own lets go of the window). */
  onLeave(cleanup: () => void): void;
}
