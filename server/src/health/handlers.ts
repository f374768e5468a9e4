// GET /health: the database answers a query; engines as the model registry reports them.
import type { Database } from '../db/database.ts';
import type { HandlerGroup } from '../http/operation.ts';
import type { ModelRegistry } from '../models/registry.ts';

export function healthHandlers(
  db: Database,
  registry: ModelRegistry,
  version: string,
  startedAt: number,
): HandlerGroup {
  return {
    getHealth: async () => {
      const database = await db
        .raw('select 1')
        .then(() => 'ok' as const)
        .catch(() => 'error' as const);
      return {
        status: database === 'ok' ? 200 : 503,
        body: {
          status: database === 'ok' ? 'ok' : 'degraded',
          version,
          uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
          checks: {
            database,
            // No background runner exists yet (it comes with the transcription pipeline), so nothing can have stopped.
            queue: 'ok',
            engines: {
              transcription: registry.engineStatus('transcription'),
              chat: registry.engineStatus('chat'),
              embedding: registry.engineStatus('embedding'),
            },
          },
        },
      };
    },
  };
}
