/** Queries run from this browser, newest first: localStorage, so they outlive the tab (the key does not). */
const STORAGE_KEY = 'vectorgraphdb-console-cypher-history';
const KEEP = 50;

export interface HistoryEntry {
  query: string;
  parameters: string;
}

export function readHistory(): HistoryEntry[] {
  try {
    const entries = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]') as unknown;
    return Array.isArray(entries) ? (entries as HistoryEntry[]) : [];
  } catch {
    return [];
  }
}

export function remember(entry: HistoryEntry): HistoryEntry[] {
  const entries = [entry, ...readHistory().filter((e) => e.query !== entry.query || e.parameters !== entry.parameters)].slice(0, KEEP);
  localStorage.setItem(STORAGE_KEY, JSON.stringify(entries));
  return entries;
}
