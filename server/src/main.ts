// `npm start` / `scribe serve`: the reference server on HOST:PORT (default 127.0.0.1:8080), SQLite unless
// DATABASE_URL is set, in the role SCRIBE_ROLE names (all, api or worker). Anything that stops the start ends with one
// line naming the setting to fix and exit code 1. SIGTERM or SIGINT shuts down gracefully (app.close: nothing new
// accepted, running jobs handed back to other workers, open streams closed) and exits 0; a second signal during the
// shutdown exits at once (1).
import type { Server } from 'node:http';
import { loadConfig } from './config.ts';
import { checkDatabaseAnswers } from './database-preflight.ts';
import { existsSync } from 'node:fs';
import { defaultSiteDir } from './docs/serve-docs.ts';
import { exitWithFatal } from './fatal-error.ts';
import { startLine } from './start-line.ts';

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
  // Loaded once the settings are known to be usable: a bad setting is reported in a fraction of a second, before
  // every feature and its dependencies load.
  const { createApp } = await import('./app.ts');
  const app = await createApp(config);
  await listen(app.server, config.port, config.host);
  process.off('uncaughtException', failedStart);
  process.off('unhandledRejection', failedStart);
  const database = config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`;
  app.logger.info({ url: `http://${config.host}:${config.port}`, database, role: config.role }, 'Scribe is listening');
  // The JSON line is for log collectors; the person at the terminal gets one plain line on stderr.
  if (config.logLevel !== 'silent') {
    const docsBuilt = existsSync(`${defaultSiteDir}index.html`);
    process.stderr.write(startLine({ host: config.host, port: config.port, database, role: config.role, docsBuilt }));
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      app.logger.warn({ signal }, 'second signal during the shutdown: exiting now');
      process.exit(1);
    }
    stopping = true;
    app.logger.info({ signal }, 'shutting down');
    app.close().then(
      () => {
        app.logger.info('shut down');
        process.exit(0);
      },
      (err: unknown) => {
        app.logger.error({ err }, 'the shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (import.meta.url === `file://${process.argv[1]}`) await serve().catch((error: unknown) => exitWithFatal(error));
