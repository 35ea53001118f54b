import { seg } from '../api.js';
import type { ConsoleContext } from '../context.js';
import { cellText } from '../cypher/cell.js';
import { cypherEditor } from '../cypher/editor.js';
import { readHistory, remember, type HistoryEntry } from '../cypher/history.js';
import { graphOfRows, missingEnds } from '../cypher/result-graph.js';
import { readSchema, type CypherSchema } from '../cypher/schema.js';
import { field, h, show } from '../dom.js';
import { nodeOfPoint, type GraphEdge, type GraphNode } from '../graph/graph-model.js';
import { GraphView } from '../graph/graph-view.js';
import type { CypherResult, Point } from '../types.js';
import { messageOf, statusLine } from './errors.js';
import { noCollection } from './no-collection.js';

const MODES = ['Table', 'JSON', 'Graph'] as const;
type Mode = (typeof MODES)[number];
/** Rows the table draws: a long result stays a page a browser can scroll; JSON holds every row. */
const TABLE_ROWS = 1000;

function parseParameters(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const value = JSON.parse(text) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('parameters must be a JSON object, e.g. {"name": "Ada"}');
  return value as Record<string, unknown>;
}

function resultTable(result: CypherResult): HTMLElement {
  const rows = result.rows.slice(0, TABLE_ROWS);
  const table = h(
    'div',
    { class: 'table-wrap' },
    h('table', { class: 'cypher-table' }, h('thead', {}, h('tr', {}, ...result.columns.map((c) => h('th', { scope: 'col' }, c)))), h('tbody', {}, ...rows.map((row) => h('tr', {}, ...row.map((v) => h('td', {}, cellText(v))))))),
  );
  if (rows.length === result.rows.length) return table;
  return h('div', {}, h('p', { class: 'hint' }, `The table shows the first ${rows.length} of ${result.rows.length} rows; JSON shows them all.`), table);
}

const rowCount = (n: number): string => (n === 1 ? '1 row' : `${n} rows`);

/** The Cypher editor: parameters as JSON, Ctrl-Enter or Run, history, and the result as a table, JSON or a graph. */
export function cypherView(ctx: ConsoleContext): HTMLElement {
  const collection = ctx.collection;
  if (collection === null) return noCollection(ctx, 'Cypher');
  const base = `/collections/${seg(collection)}`;
  const status = statusLine();
  let schema: CypherSchema = { labels: [], relationshipTypes: [], propertyKeys: [] };
  let result: CypherResult | null = null;
  let mode: Mode = 'Table';
  const history = h('select', { 'aria-label': 'Query history' });
  const parameters = h('textarea', { rows: 3, spellcheck: false, 'aria-label': 'Parameters (JSON)', placeholder: '{"name": "Ada"}' });
  const output = h('div', { class: 'cypher-output' });
  const graph = new GraphView(ctx.api, () => collection, (e) => status.error(e));
  ctx.onLeave(() => graph.destroy());
  const modeButtons = MODES.map((m) => h('button', { type: 'button', 'aria-pressed': m === mode ? 'true' : 'false', onclick: () => showResult(m) }, m));
  const editorHost = h('div', { class: 'cypher-editor' });

  const fillHistory = (entries: HistoryEntry[]): void => {
    show(history, h('option', { value: '' }, `History (${entries.length})`), ...entries.map((e, i) => h('option', { value: i }, e.query.replace(/\s+/g, ' ').slice(0, 80))));
  };

  function showResult(next: Mode): void {
    mode = next;
    modeButtons.forEach((b) => b.setAttribute('aria-pressed', b.textContent === mode ? 'true' : 'false'));
    if (!result) return show(output);
    if (mode === 'Table') show(output, resultTable(result));
    else if (mode === 'JSON') show(output, h('pre', { class: 'json' }, JSON.stringify(result, null, 2)));
    else {
      const { nodes, edges } = graphOfRows(result.rows);
      if (nodes.length === 0 && edges.length === 0) {
        show(output, h('p', { class: 'hint' }, 'Nothing to draw: the result holds no nodes or relationships. Return them whole (RETURN n, r or a path p) to see a graph.'));
        return;
      }
      show(output, graph.element);
      drawGraph(nodes, edges).catch(status.error);
    }
  }

  /** Draws the result's graph, with the nodes at the ends of its relationships read by id when the rows lack them. */
  async function drawGraph(nodes: GraphNode[], edges: GraphEdge[]): Promise<void> {
    const ids = missingEnds(nodes, edges);
    const ends = ids.length ? await ctx.api.post<Point[]>(`${base}/points`, { ids, with_payload: true }) : [];
    graph.replace([...nodes, ...ends.map(nodeOfPoint)], edges);
  }

  const run = async (): Promise<void> => {
    editor.clearError();
    const query = editor.text();
    let params: Record<string, unknown>;
    try {
      params = parseParameters(parameters.value);
    } catch (e) {
      status.error(`Parameters: ${messageOf(e)}`);
      return;
    }
    fillHistory(remember({ query, parameters: parameters.value }));
    status.info('Running…');
    try {
      result = await ctx.api.post<CypherResult>(`${base}/graph/query`, { query, parameters: params });
      status.info(`${rowCount(result.rows.length)}, ${result.stats.nodes_scanned} nodes scanned, ${result.stats.execution_time_ms.toFixed(1)} ms`);
      showResult(mode);
    } catch (e) {
      result = null;
      showResult(mode);
      status.error(e);
      editor.markError(messageOf(e));
    }
  };
  const editor = cypherEditor(editorHost, readHistory()[0]?.query ?? 'MATCH (n) RETURN n LIMIT 25', () => void run(), () => schema);

  parameters.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void run();
    }
  });
  history.addEventListener('change', () => {
    const entry = readHistory()[Number(history.value)];
    if (history.value === '' || !entry) return;
    editor.setText(entry.query);
    parameters.value = entry.parameters;
    editor.view.focus();
  });
  fillHistory(readHistory());
  readSchema(ctx.api, collection)
    .then((s) => void (schema = s))
    .catch(status.error);

  return h(
    'section',
    { class: 'view cypher-view' },
    h('div', { class: 'view-head' }, h('h2', {}, `Cypher on ${collection}`), history),
    editorHost,
    field('Parameters (JSON)', parameters),
    h('div', { class: 'toolbar' }, h('button', { type: 'button', class: 'primary', onclick: () => void run() }, 'Run (Ctrl-Enter)'), h('span', { role: 'group', 'aria-label': 'Show the result as' }, ...modeButtons)),
    status.element,
    output,
  );
}
