// A node's graceful stop, in the one order that loses nothing: stop taking work (the listener closes, idle
// keep-alive connections go, no more job claims), hand the jobs in flight back and close the open streams (1011),
// let the HTTP requests in flight finish within the drain time, then free the engines' native memory, then the
// database. Each step's duration is logged: a shutdown that overruns an orchestrator's grace period says what it
// waited on.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import type { BackgroundWork } from './background-work.ts';

export interface NodeParts {
  server: Server;
  /** Jobs, webhook deliveries and sweeps (absent on an `api` node). */
  background: BackgroundWork | undefined;
  /** The WebSocket server of an API node; closing it closes its sessions and its stream engine. */
  streamServer: { close(): Promise<void> } | undefined;
  /** Everything holding threads or native memory, closed together once no request can reach them. */
  engines: { close(): Promise<void> }[];
  db: Database;
  /** How long in-flight HTTP requests may run on after the shutdown began before their connections are cut. */
  drainMs: number;
  logger: Logger;
}

export async function shutDownNode({ server, background, streamServer, engines, db, drainMs, logger }: NodeParts) {
  const began = performance.now();
  const done = (step: string) => logger.info({ ms: Math.round(performance.now() - began) }, `shutdown: ${step}`);
  const drained = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  server.closeIdleConnections();
  await Promise.all([background?.stop(), streamServer?.close()]);
  done('jobs handed back and streams closed');
  const cut = setTimeout(() => server.closeAllConnections(), drainMs);
  // A connection whose request finishes during the drain turns idle and kept alive (for the keep-alive timeout, a
  // minute): it is closed as soon as it is idle, so the drain ends with its last request.
  const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
  await drained;
  clearTimeout(cut);
  clearInterval(idleSweep);
  done('HTTP connections closed');
  // Engine threads are given their grace to free native memory (a decoder stops between segments), all at once.
  await Promise.all(engines.map((engine) => engine.close()));
  done('engines closed');
  await db.destroy();
}
