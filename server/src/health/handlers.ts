// GET /health: the database answers a query; the data dir keeps its free-space threshold; the webhook backlog is not
// late; engines as the model registry reports them; this process's role and its view of the job queue (jobs it
// runs, tasks waiting for any worker). Every check that waits on something is raced against a bound, so the report
// is answered within a second whatever the database or the disk do: a check that has not answered by then is `error`
// (and one still pending is not started again, so a frozen database does not collect a query per probe).
// `degraded` when a check fails or an engine that is always configured (transcription, embedding) cannot serve —
// then with the reason and how to fix it. Chat models are optional (no weights ship), so an unconfigured one degrades
// nothing. HTTP 503 when the database does not answer, or from the first moment of a shutdown (`draining`), so a load
// balancer stops sending requests here.
import type { Role } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { HandlerGroup } from '../http/operation.ts';
import type { SpaceCheck } from '../media/free-space.ts';
import type { ModelRegistry } from '../models/registry.ts';
import { countQueuedJobs } from '../roles/queue-depth.ts';

/** How long one check may take: the whole report stays within a second on a loaded machine too. */
export const HEALTH_CHECK_BOUND_MS = 500;

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
  /** The data dir's free space. */
  space: SpaceCheck;
  /** Whether deliveries wait unsent long past their due time (false where this process sends none). */
  webhooksLate: () => Promise<boolean>;
  /** True from the first moment of a shutdown. */
  draining: () => boolean;
}

const TIMED_OUT = Symbol('timed out');

/**
 * `check` shared while it runs: a probe that arrives while the previous one still waits joins it instead of adding
 * another query to a database that does not answer. Resolves with TIMED_OUT after the bound, or undefined on failure.
 */
function boundedCheck<T>(check: () => Promise<T>): () => Promise<T | typeof TIMED_OUT | undefined> {
  let pending: Promise<T | undefined> | undefined;
  return () => {
    pending ??= check()
      .catch(() => undefined)
      .finally(() => (pending = undefined));
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), HEALTH_CHECK_BOUND_MS);
    });
    return Promise.race([pending, bound]).finally(() => clearTimeout(timer));
  };
}

export function healthHandlers(deps: HealthDeps): HandlerGroup {
  const { db, registry, version, startedAt, role } = deps;
  const queueDepth = boundedCheck(() => countQueuedJobs(db));
  const diskHealthy = boundedCheck(() => deps.space.healthy());
  const webhooksLate = boundedCheck(() => deps.webhooksLate());
  return {
    getHealth: async () => {
      const [counted, disk, late] = await Promise.all([queueDepth(), diskHealthy(), webhooksLate()]);
      const queued = typeof counted === 'number' ? counted : undefined;
      const database = queued !== undefined ? ('ok' as const) : ('error' as const);
      const engines = {
        transcription: registry.engineStatus('transcription'),
        chat: registry.engineStatus('chat'),
        embedding: registry.engineStatus('embedding'),
      };
      const reasons = registry.unavailableReasons();
      const queue = database === 'ok' && deps.runnerActive() ? ('ok' as const) : ('error' as const);
      const diskStatus = disk === true ? ('ok' as const) : ('error' as const);
      const webhooks = late === false ? ('ok' as const) : ('error' as const);
      const draining = deps.draining();
      const degraded =
        database !== 'ok' ||
        queue !== 'ok' ||
        diskStatus !== 'ok' ||
        webhooks !== 'ok' ||
        engines.transcription === 'unavailable' ||
        engines.embedding === 'unavailable';
      return {
        status: database === 'ok' && !draining ? 200 : 503,
        body: {
          status: draining ? 'draining' : degraded ? 'degraded' : 'ok',
          version,
          uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
          role,
          ...(queued !== undefined ? { jobs: { running: deps.runningJobs(), queued } } : {}),
          checks: {
            database,
            queue,
            disk: diskStatus,
            webhooks,
            engines,
            ...(Object.keys(reasons).length > 0 ? { unavailable_reasons: reasons } : {}),
          },
        },
      };
    },
  };
}
