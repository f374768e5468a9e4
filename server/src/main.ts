// `npm start` / `scribe serve`: the reference server on HOST:PORT (default 127.0.0.1:8080), SQLite unless
// DATABASE_URL is set.
import { createApp } from './app.ts';
import { loadConfig } from './config.ts';

export async function serve(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  await new Promise<void>((resolve) => app.server.listen(config.port, config.host, resolve));
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

if (import.meta.url === `file://${process.argv[1]}`) await serve();
