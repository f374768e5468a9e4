// Ends the open stream sessions of accounts blocked since they connected. A block is written to the database by
// whichever process served it (the admin HTTP surface, or the CLI, a process of its own), and the sessions may be held
// by any process on that database, so each process that holds connections asks, every `intervalMs`, which of its own
// sessions belong to a blocked account (one query per process, whatever the number of sessions) and ends those: the
// audio transcribed so far is charged, then `error` user_blocked and close 4401. A block reaches every session within
// one interval plus the query's time.
import type { Logger } from 'pino';
import type { StreamService } from './session-service.ts';
import type { StreamConnection } from './stream-connection.ts';

/** How often each process looks for sessions of blocked accounts: the bound on how long such a session runs on. */
export const BLOCK_CHECK_MS = 2000;

export interface BlockWatchDeps {
  service: Pick<StreamService, 'blockedSessions'>;
  connections: () => Iterable<StreamConnection>;
  logger: Logger;
  intervalMs?: number;
}

export function startBlockWatch(deps: BlockWatchDeps): { stop(): void } {
  let running = false;
  async function check(): Promise<void> {
    if (running) return; // a slow database: the next tick asks again
    const open = [...deps.connections()];
    if (open.length === 0) return; // no query while this process holds no stream
    running = true;
    try {
      const blocked = new Set(await deps.service.blockedSessions());
      if (blocked.size === 0) return;
      for (const connection of open)
        if (connection.sessionId !== undefined && blocked.has(connection.sessionId)) connection.block();
    } catch (err) {
      deps.logger.error({ err }, 'stream block watch failed; retrying at the next interval');
    } finally {
      running = false;
    }
  }
  const timer = setInterval(() => void check(), deps.intervalMs ?? BLOCK_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
