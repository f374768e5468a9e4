// Waking the job runners of other processes (PostgreSQL only): a node that queues a task sends NOTIFY on
// `scribe_jobs`, and every node that runs jobs keeps one dedicated connection LISTENing on that channel and wakes one
// idle slot per notification. The payload is the sender's node id, so a node whose own intake already woke its runner
// is not woken a second time. A notification is a shortcut, never the queue: the task row is, and the runner's poll
// finds whatever a notification missed (sent while the listener was reconnecting, or to nobody).
import pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';

export const JOBS_CHANNEL = 'scribe_jobs';

/** How long the listener waits before connecting again after its connection dropped (or failed to open). */
const RECONNECT_MS = 1000;

/** Sends the notification through the shared pool; a failure is logged (the poll still finds the task). */
export function createJobAnnouncer(db: Database, nodeId: string, logger: Logger) {
  return {
    announce(): void {
      db.raw('SELECT pg_notify(?, ?)', [JOBS_CHANNEL, nodeId]).catch((err: unknown) =>
        logger.warn({ err }, 'could not notify the workers of a new task; they find it at their next poll'),
      );
    },
  };
}

export interface JobListenerOptions {
  databaseUrl: string;
  nodeId: string;
  /** A task was queued by another node (or the connection came back and one may have been missed). */
  onJob: () => void;
  logger: Logger;
}

/**
 * Listens on a connection of its own (a pooled one would be handed to queries and lose its LISTEN). When it drops,
 * one warning is logged, it reconnects every RECONNECT_MS until it can, logs that it listens again and wakes a slot
 * for what it may have missed.
 */
export function listenForJobs(options: JobListenerOptions) {
  const { databaseUrl, nodeId, onJob, logger } = options;
  let client: pg.Client | undefined;
  let closed = false;
  let lost = false;
  let retry: NodeJS.Timeout | undefined;

  function reconnectLater(err: unknown): void {
    if (closed) return;
    if (!lost) {
      lost = true;
      logger.warn({ err }, 'the job wake-up listener lost its database connection; reconnecting (polling meanwhile)');
    }
    clearTimeout(retry);
    retry = setTimeout(() => void connect(), RECONNECT_MS);
  }

  async function connect(): Promise<void> {
    const next = new pg.Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: 5000,
      application_name: 'scribe-job-wakeup',
    });
    // A dropped connection surfaces as 'error' (socket) and/or 'end'; either one schedules a single reconnect.
    let dropped = false;
    const drop = (err: unknown) => {
      if (dropped) return;
      dropped = true;
      if (client === next) client = undefined;
      next.end().catch(() => undefined);
      reconnectLater(err);
    };
    next.on('error', drop);
    next.on('end', () => drop(new Error('connection ended')));
    next.on('notification', (message) => {
      if (message.channel === JOBS_CHANNEL && message.payload !== nodeId) onJob();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${JOBS_CHANNEL}`);
    } catch (err) {
      drop(err);
      return;
    }
    if (closed) {
      dropped = true;
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    if (lost) {
      lost = false;
      logger.info('the job wake-up listener is listening again');
      onJob();
    }
  }

  const started = connect();
  return {
    /** Resolves once the first connection attempt has settled (listening, or retrying in the background). */
    ready: started,
    async close(): Promise<void> {
      closed = true;
      clearTimeout(retry);
      await started;
      const current = client;
      client = undefined;
      if (current) {
        current.removeAllListeners('end');
        current.removeAllListeners('error');
        current.on('error', () => undefined);
        await current.end().catch(() => undefined);
      }
    },
  };
}

export type JobListener = ReturnType<typeof listenForJobs>;
