// Before the server or the CLI opens its knex pool on DATABASE_URL: one plain connection that must answer within a few
// seconds. A database that does not answer is then a single clear failure (fatal-error.ts names DATABASE_URL), instead
// of knex's pool logging "Acquire connection error" with a stack and retrying until its own timeout.
import pg from 'pg';

export async function checkDatabaseAnswers(url: string | undefined, timeoutMs = 5000): Promise<void> {
  if (!url) return; // SQLite: a file in the data dir
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // A socket error after connect() has rejected must not become an uncaught 'error' event.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}
