import type { ConsoleContext } from '../context.js';
import { h } from '../dom.js';

/** What a tab that needs a collection shows when none is chosen. */
export function noCollection(ctx: ConsoleContext, title: string): HTMLElement {
  return h('section', { class: 'view' }, h('h2', {}, title), h('p', {}, 'Choose a collection in the header, or ', h('button', { type: 'button', class: 'link', onclick: () => ctx.go('collections') }, 'create one'), '.'));
}
