import type { Api } from './api.js';
import { TABS, type ConsoleContext, type Tab } from './context.js';
import { forgetCredential } from './credential.js';
import { h, show } from './dom.js';
import { GraphView } from './graph/graph-view.js';
import { collectionsView } from './views/collections-view.js';
import { cypherView } from './views/cypher-view.js';
import { messageOf } from './views/errors.js';
import { graphTab } from './views/graph-tab.js';
import { pointsView } from './views/points-view.js';
import { searchView } from './views/search-view.js';
import { transferView } from './views/transfer-view.js';

const VIEWS: Record<Tab, (ctx: ConsoleContext) => HTMLElement> = {
  collections: collectionsView,
  points: pointsView,
  search: searchView,
  cypher: cypherView,
  graph: graphTab,
  transfer: transferView,
};
const TITLES: Record<Tab, string> = { collections: 'Collections', points: 'Points', search: 'Search', cypher: 'Cypher', graph: 'Graph', transfer: 'Export / import' };

/** `#/<tab>/<collection>`: the place in the console, so reload and back keep it. */
function readHash(): { tab: Tab; collection: string | null } {
  const [, tab, collection] = location.hash.split('/');
  return { tab: TABS.includes(tab as Tab) ? (tab as Tab) : 'collections', collection: collection ? decodeURIComponent(collection) : null };
}

/** The page: a header with the collection picker and the tabs, the current view, and a notice area. */
export async function startShell(root: HTMLElement, api: Api, authSchemes: readonly string[]): Promise<void> {
  const picker = h('select', { 'aria-label': 'Collection' });
  const tabs = TABS.map((tab) => h('button', { type: 'button', 'data-tab': tab, onclick: () => ctx.go(tab) }, TITLES[tab]));
  const main = h('main', { id: 'view' });
  const notice = h('p', { class: 'notice', role: 'alert' });
  let current: Tab = 'collections';
  let leaving: (() => void)[] = [];
  let arriving: string | null = null;

  const ctx: ConsoleContext = {
    api,
    collection: null,
    go(tab, collection = ctx.collection, message) {
      arriving = message ?? null;
      const hash = `#/${tab}${collection === null ? '' : `/${encodeURIComponent(collection)}`}`;
      if (location.hash === hash) render();
      else location.hash = hash;
    },
    async refreshCollections() {
      const { collections } = await api.get<{ collections: { name: string }[] }>('/collections');
      show(picker, h('option', { value: '' }, collections.length ? 'Choose a collection' : 'No collections'), ...collections.map((c) => h('option', { value: c.name }, c.name)));
      picker.value = ctx.collection ?? '';
    },
    graph: new GraphView(api, () => ctx.collection, (e) => ctx.notify(messageOf(e), 'error')),
    notify(message, kind = 'info') {
      notice.className = `notice ${kind}`;
      notice.textContent = message;
    },
    onLeave(cleanup) {
      leaving.push(cleanup);
    },
  };

  const listed = (name: string): boolean => [...picker.options].some((o) => o.value === name);

  /** A collection the address names but the list lacks (deleted elsewhere, or mistyped): the list is read again before saying so. */
  async function warnIfMissing(name: string): Promise<void> {
    await ctx.refreshCollections();
    if (ctx.collection === name && !listed(name)) ctx.notify(`There is no collection ${name}: choose one in the header, or create it on the Collections tab.`, 'error');
  }

  function render(): void {
    for (const cleanup of leaving) cleanup();
    leaving = [];
    const { tab, collection } = readHash();
    if (collection !== ctx.collection) ctx.graph.clear();
    ctx.collection = collection;
    current = tab;
    picker.value = collection ?? '';
    for (const button of tabs) button.setAttribute('aria-current', button.dataset.tab === tab ? 'page' : 'false');
    notice.textContent = '';
    if (arriving !== null) ctx.notify(arriving);
    arriving = null;
    show(main, VIEWS[tab](ctx));
    if (tab === 'graph') ctx.graph.shown();
    if (collection !== null && !listed(collection)) warnIfMissing(collection).catch((e: unknown) => ctx.notify(messageOf(e), 'error'));
  }

  picker.addEventListener('change', () => ctx.go(current, picker.value || null));
  window.addEventListener('hashchange', render);
  const signOut = authSchemes.length > 0 && h('button', { type: 'button', onclick: () => (forgetCredential(), location.reload()) }, 'Forget key');
  show(root, h('header', {}, h('h1', {}, 'vectorgraphdb'), h('label', { class: 'picker' }, 'Collection ', picker), h('nav', { 'aria-label': 'Console sections' }, ...tabs), signOut), notice, main);
  root.removeAttribute('aria-busy');
  try {
    await ctx.refreshCollections();
  } catch (e) {
    ctx.notify(messageOf(e), 'error');
  }
  const first = picker.options[1]?.value;
  if (readHash().collection === null && first !== undefined) history.replaceState(null, '', `#/${readHash().tab}/${encodeURIComponent(first)}`);
  render();
}
