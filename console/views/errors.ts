import { h } from '../dom.js';

/** An error's text for the page: the server's own message for an API error. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A region a view writes its last error (or outcome) into, read out by screen readers. */
export function statusLine(): { element: HTMLElement; error(e: unknown): void; info(text: string): void; clear(): void } {
  const element = h('p', { class: 'status-line', role: 'status', 'aria-live': 'polite' });
  return {
    element,
    error(e) {
      element.className = 'status-line error';
      element.textContent = messageOf(e);
    },
    info(text) {
      element.className = 'status-line';
      element.textContent = text;
    },
    clear() {
      element.textContent = '';
    },
  };
}
