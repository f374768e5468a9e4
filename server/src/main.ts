// `npm start` / `scribe serve`: the reference server on HOST:PORT (default 127.0.0.1:8080), SQLite unless
// DATABASE_URL is set. Anything that stops the start ends with one line naming the setting to fix and exit code 1.
import type { Server } from 'node:http';
import { createApp } from './app.ts';
import { loadConfig } from './config.ts';
import { checkDatabaseAnswers } from './database-preflight.ts';
import { exitWithFatal } from './fatal-error.ts';

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function serve(): Promise<void> {
  // Until the server listens, an error thrown anywhere (a database client's late socket error, a worker) is a failed
  // start, reported like the others.
  const failedStart = (error: unknown) => exitWithFatal(error);
  process.on('uncaughtException', failedStart);
  process.on('unhandledRejection', failedStart);
  const config = loadConfig();
  await checkDatabaseAnswers(config.databaseUrl);
  const app = await createApp(config);
  await listen(app.server, config.port, config.host);
  process.off('uncaughtException', failedStart);
  process.off('unhandledRejection', failedStart);
  const database = config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`;
  app.logger.info({ url: `http://${config.host}:${config.port}`, database }, 'Scribe is listening');
  const stop = async () => {
    app.logger.info('shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (import.meta.url === `file://${process.argv[1]}`) await serve().catch((error: unknown) => exitWithFatal(error));
