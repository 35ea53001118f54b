import { Api } from './api.js';
import { askForCredential } from './auth-dialog.js';
import { storedCredential } from './credential.js';
import { startShell } from './shell.js';

/** The console's entry: learn whether the server wants a key, ask for one once, then show the page. */
const settings = (await (await fetch('/console/settings.json')).json()) as { auth_schemes: string[] };
if (settings.auth_schemes.length > 0 && storedCredential() === null) await askForCredential(settings.auth_schemes, 'This server needs an API key or token.');
await startShell(document.getElementById('app')!, new Api(settings.auth_schemes), settings.auth_schemes);
