// The API key the visitor pasted, kept in sessionStorage (gone when the tab closes, never sent anywhere but this
// server), and the scribe-client pointed at the server that serves the page: same origin, so no CORS.
import { createClient, createConfig, type Client } from '../../client/src/index.ts';

const STORAGE_KEY = 'scribe.playground.apiKey';

export function savedKey(): string {
  return sessionStorage.getItem(STORAGE_KEY) ?? '';
}

export function saveKey(key: string): void {
  if (key) sessionStorage.setItem(STORAGE_KEY, key);
  else sessionStorage.removeItem(STORAGE_KEY);
}

/** The client reads the key on every request, so a newly pasted key applies at once. */
export function pageClient(): Client {
  return createClient(createConfig({ baseUrl: location.origin, auth: () => savedKey() }));
}
