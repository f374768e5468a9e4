// The one plain line `npm start` prints once the server listens, for the person who started it: where it listens,
// where its documentation is (or how to build it) and how to stop it. The JSON log line beside it is for machines.

export interface StartLineFacts {
  host: string;
  port: number;
  /** `PostgreSQL` or `SQLite in <dir>`. */
  database: string;
  role: string;
  /** Whether the docs site (`npm run docs`) is built, so /docs/ serves it. */
  docsBuilt: boolean;
}

/** The address a browser on this machine uses: a wildcard host is reached through the loopback address. */
export function browsableOrigin(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

export function startLine(facts: StartLineFacts): string {
  const origin = browsableOrigin(facts.host, facts.port);
  const docs = facts.docsBuilt ? `${origin}/docs/` : `${origin}/docs/ (build them first: npm run docs)`;
  return `Scribe is listening on ${origin} (${facts.database}, role ${facts.role}). Docs: ${docs}. Ctrl+C stops it.\n`;
}
