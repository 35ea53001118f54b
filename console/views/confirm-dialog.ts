import { h } from '../dom.js';

/** Asks a yes/no question in a modal dialog; answers true only for the confirming button. */
export function confirmDialog(question: string, confirmLabel: string): Promise<boolean> {
  return new Promise((done) => {
    const dialog = h(
      'dialog',
      { class: 'confirm-dialog', 'aria-label': 'Confirm' },
      h('form', { method: 'dialog' }, h('p', {}, question), h('div', { class: 'toolbar' }, h('button', { value: 'cancel', autofocus: true }, 'Cancel'), h('button', { value: 'confirm', class: 'danger' }, confirmLabel))),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      done(dialog.returnValue === 'confirm');
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
