// GET /health: the database answers a query; engines as the model registry reports them; this process's role and its
// view of the job queue (jobs it runs, tasks waiting for any worker). `degraded` when the database does not answer
// (HTTP 503) or an engine that is always configured (transcription, embedding) cannot serve — then with the reason and
// how to fix it. Chat models are optional (no weights ship), so an unconfigured one degrades nothing. `checks.queue`
// is `error` when the database (which holds the queue) does not answer or this process's runner has stopped.
import type { Role } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { HandlerGroup } from '../http/operation.ts';
import type { ModelRegistry } from '../models/registry.ts';
import { countQueuedJobs } from '../roles/queue-depth.ts';

export interface HealthDeps {
  db: Database;
  registry: ModelRegistry;
  version: string;
  startedAt: number;
  role: Role;
  /** Jobs this process runs now (0 on an `api` process, which runs none). */
  runningJobs: () => number;
  /** False once this process's runner was stopped (shutting down); always true where no runner runs. */
  runnerActive: () => boolean;
}

export function healthHandlers(deps: HealthDeps): HandlerGroup {
  const { db, registry, version, startedAt, role } = deps;
  return {
    getHealth: async () => {
      const queued = await countQueuedJobs(db).catch(() => undefined);
      const database = queued !== undefined ? ('ok' as const) : ('error' as const);
      const engines = {
        transcription: registry.engineStatus('transcription'),
        chat: registry.engineStatus('chat'),
        embedding: registry.engineStatus('embedding'),
      };
      const reasons = registry.unavailableReasons();
      const queue = database === 'ok' && deps.runnerActive() ? ('ok' as const) : ('error' as const);
      const degraded =
        database !== 'ok' ||
        queue !== 'ok' ||
        engines.transcription === 'unavailable' ||
        engines.embedding === 'unavailable';
      return {
        status: database === 'ok' ? 200 : 503,
        body: {
          status: degraded ? 'degraded' : 'ok',
          version,
          uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
          role,
          ...(queued !== undefined ? { jobs: { running: deps.runningJobs(), queued } } : {}),
          checks: {
            database,
            queue,
            engines,
            ...(Object.keys(reasons).length > 0 ? { unavailable_reasons: reasons } : {}),
          },
        },
      };
    },
  };
}
