// GET /health: the database answers a query; engines as the model registry reports them. `degraded` when the database
// does not answer (HTTP 503) or an engine that is always configured (transcription, embedding) cannot serve — then
// with the reason and how to fix it. Chat models are optional (no weights ship), so an unconfigured one degrades nothing.
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
      const engines = {
        transcription: registry.engineStatus('transcription'),
        chat: registry.engineStatus('chat'),
        embedding: registry.engineStatus('embedding'),
      };
      const reasons = registry.unavailableReasons();
      const degraded =
        database !== 'ok' || engines.transcription === 'unavailable' || engines.embedding === 'unavailable';
      return {
        status: database === 'ok' ? 200 : 503,
        body: {
          status: degraded ? 'degraded' : 'ok',
          version,
          uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
          checks: {
            database,
            // No background runner exists yet (it comes with the transcription pipeline), so nothing can have stopped.
            queue: 'ok',
            engines,
            ...(Object.keys(reasons).length > 0 ? { unavailable_reasons: reasons } : {}),
          },
        },
      };
    },
  };
}
