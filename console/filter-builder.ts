import { h } from './dom.js';
import type { Filter } from './types.js';

const CLAUSES = ['must', 'should', 'must_not'] as const;
const OPERATORS = {
  match: 'equals',
  any: 'is any of (comma-separated)',
  text: 'contains the text',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  is_empty: 'is empty',
  is_null: 'is null',
} as const;
type Operator = keyof typeof OPERATORS;

/** A typed value: JSON when it reads as JSON (numbers, true, "quoted"), else the text itself. */
function valueOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.trim();
  }
}

function condition(key: string, op: Operator, raw: string): Record<string, unknown> {
  switch (op) {
    case 'match':
      return { key, match: { value: valueOf(raw) } };
    case 'any':
      return { key, match: { any: raw.split(',').map((v) => valueOf(v.trim())) } };
    case 'text':
      return { key, match: { text: raw } };
    case 'is_empty':
      return { is_empty: { key } };
    case 'is_null':
      return { is_null: { key } };
    default:
      return { key, range: { [op]: valueOf(raw) } };
  }
}

interface Row {
  element: HTMLElement;
  clause: HTMLSelectElement;
  key: HTMLInputElement;
  op: HTMLSelectElement;
  value: HTMLInputElement;
}

/**
 * Builds a payload filter from rows (must / should / must_not, a key, a test, a value) and
 * shows the JSON it sends.
 */
export class FilterBuilder {
  readonly element: HTMLElement;
  private readonly rows: Row[] = [];
  private readonly list = h('div', { class: 'filter-rows' });
  private readonly preview = h('code', { class: 'filter-json' });

  constructor() {
    this.element = h(
      'fieldset',
      { class: 'filter-builder' },
      h('legend', {}, 'Filter'),
      this.list,
      h('button', { type: 'button', onclick: () => this.addRow() }, 'Add condition'),
      h('p', {}, 'Sends: ', this.preview),
    );
    this.update();
  }

  /** The filter, or undefined with no condition. */
  filter(): Filter | undefined {
    const filter: Record<string, unknown[]> = {};
    for (const row of this.rows) {
      if (row.key.value.trim() === '') continue;
      (filter[row.clause.value] ??= []).push(condition(row.key.value.trim(), row.op.value as Operator, row.value.value));
    }
    return Object.keys(filter).length ? filter : undefined;
  }

  addRow(clause = 'must', key = '', op: Operator = 'match', value = ''): void {
    const row: Row = {
      element: h('div', { class: 'filter-row' }),
      clause: h('select', { 'aria-label': 'Clause' }, ...CLAUSES.map((c) => h('option', { value: c }, c))),
      key: h('input', { type: 'text', placeholder: 'payload key, e.g. topic or address.city', 'aria-label': 'Payload key' }),
      op: h('select', { 'aria-label': 'Test' }, ...Object.entries(OPERATORS).map(([v, text]) => h('option', { value: v }, text))),
      value: h('input', { type: 'text', placeholder: 'value', 'aria-label': 'Value' }),
    };
    row.clause.value = clause;
    row.key.value = key;
    row.op.value = op;
    row.value.value = value;
    const remove = h('button', { type: 'button', 'aria-label': 'Remove condition', onclick: () => this.removeRow(row) }, '✕');
    row.element.append(row.clause, row.key, row.op, row.value, remove);
    row.element.addEventListener('input', () => this.update());
    this.rows.push(row);
    this.list.append(row.element);
    this.update();
    row.key.focus();
  }

  private removeRow(row: Row): void {
    this.rows.splice(this.rows.indexOf(row), 1);
    row.element.remove();
    this.update();
  }

  private update(): void {
    for (const row of this.rows) row.value.hidden = row.op.value === 'is_empty' || row.op.value === 'is_null';
    const filter = this.filter();
    this.preview.textContent = filter ? JSON.stringify(filter) : 'no filter';
  }
}
