import { storeCredential } from './credential.js';
import { field, h } from './dom.js';

const SCHEME_NAMES: Record<string, string> = { ApiKey: 'API key', Bearer: 'Bearer token' };
let pending: Promise<void> | null = null;

/**
 * Asks for an API key or token in a modal dialog and keeps it for the tab. Requests that meet a
 * 401 together share one dialog.
 */
export function askForCredential(schemes: readonly string[], reason: string): Promise<void> {
  pending ??= new Promise<void>((done) => {
    const offered = schemes.length > 0 ? schemes : ['ApiKey', 'Bearer'];
    const scheme = h('select', { name: 'scheme' }, ...offered.map((s) => h('option', { value: s }, SCHEME_NAMES[s] ?? s)));
    const secret = h('input', { type: 'password', name: 'secret', required: true, autocomplete: 'off' });
    const form = h(
      'form',
      { method: 'dialog' },
      h('h2', {}, 'Sign in'),
      h('p', { class: 'reason' }, reason),
      field('Kind', scheme),
      field('Key or token', secret),
      h('p', { class: 'hint' }, 'Kept in this tab only (sessionStorage), sent with every API call.'),
      h('button', { type: 'submit' }, 'Sign in'),
    );
    const dialog = h('dialog', { class: 'auth-dialog', 'aria-label': 'Sign in' }, form);
    // Escape would close the dialog without a key; the console cannot work without one.
    dialog.addEventListener('cancel', (e) => e.preventDefault());
    form.addEventListener('submit', (event) => {
      // Closed here, not by the form's own dialog method: that would run after the dialog is gone.
      event.preventDefault();
      storeCredential({ scheme: scheme.value, secret: secret.value.trim() });
      dialog.close();
      dialog.remove();
      pending = null;
      done();
    });
    document.body.append(dialog);
    dialog.showModal();
    secret.focus();
  });
  return pending;
}
