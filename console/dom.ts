type AttrValue = string | number | boolean | null | undefined | ((event: Event) => void);
export type Child = Node | string | number | null | undefined | false;

/**
 * Makes an element: `on…` attributes become listeners, `false`/null/undefined attributes are
 * left out and `true` ones set empty; children that are strings become text (never HTML).
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, AttrValue> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces what `parent` shows. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A label with its field, so every input has an accessible name. */
export function field(label: string, input: HTMLElement): HTMLLabelElement {
  return h('label', { class: 'field' }, h('span', {}, label), input);
}

/** JSON on one line, cut to `max` characters for a table cell. */
export function shortJson(value: unknown, max = 120): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
