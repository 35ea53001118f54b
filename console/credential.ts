/** Where the tab keeps the key: sessionStorage, so it goes with the tab and is never written to disk by us. */
const STORAGE_KEY = 'vectorgraphdb-console-credential';

export interface Credential {
  scheme: string;
  secret: string;
}

export function storedCredential(): Credential | null {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  return raw === null ? null : (JSON.parse(raw) as Credential);
}

export function storeCredential(credential: Credential): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credential));
}

export function forgetCredential(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** The Authorization header for the stored credential, or none. */
export function credentialHeaders(): Record<string, string> {
  const credential = storedCredential();
  return credential ? { Authorization: `${credential.scheme} ${credential.secret}` } : {};
}
