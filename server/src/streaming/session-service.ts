// Stream sessions from ticket to settlement, and their money (seed rule 4): create reserves funds for
// `reserveMinutes` of audio (capped by what is available; 402 when nothing is) and issues the single-use ticket;
// connecting claims the ticket atomically; a session that outgrows its reservation extends it a minute at a time. A
// session that ends (session-billing.ts says which endings those are: `end`, a close by the client, idle, a block,
// a client's protocol violation) captures ceil(transcribed seconds / 60) minutes at the lightning price and
// releases the rest; a dropped connection, the server's own failure or shutdown, an expired ticket and a dead
// server's session only release. Each state change is one conditional UPDATE (session-store.ts), so whichever party
// ends a session first — its connection or a sweeper — does so once; the charge is written on the session row in that
// same UPDATE, before the ledger is touched, so a process that stops between the two leaves a row the sweeper captures
// exactly once (and a process that stops before it leaves a `connected` row whose lease runs out: a dropped session).
// A session that reached `session.started` is also recorded as a task row (mode `stream`, lightning) so it counts in
// the usage statistics; the v3/v2 task endpoints do not show those rows.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { StreamAppliedConfig, StreamSession } from '../../../generated/client/types.gen.ts';
import { availableMinor, type AccountRow } from '../accounts/store.ts';
import type { Ledger } from '../billing/ledger.ts';
import { quote } from '../billing/prices.ts';
import type { PriceTable, StreamingConfig } from '../config.ts';
import { withAccountLimit } from '../db/account-limit.ts';
import type { Database } from '../db/database.ts';
import { toBool } from '../db/rows.ts';
import { ApiError, errors } from '../http/api-error.ts';
import { createStreamSessionStore, type StreamSessionRow } from './session-store.ts';
import { newTicket, ticketHash } from './tickets.ts';
import { taskFailures } from '../transcriptions/task-errors.ts';

const RETRY_AFTER_SECONDS = 5;

const captureDescription = (sessionId: string, minutesBilled: number) =>
  `Stream session ${sessionId}: ${minutesBilled} min`;

/**
 * The task status of a session that ended uncharged: a connection that went away (`client_closed`: no close frame
 * reached the server) cancels, the rest fail.
 */
const droppedTaskStatus = (reason: string | null) => (reason === 'client_closed' ? 'cancelled' : 'failed');

export interface StreamServiceDeps {
  db: Database;
  ledger: Ledger;
  prices: PriceTable;
  config: StreamingConfig;
  ticketTtlSeconds: number;
  /** Whether a streaming engine can run here (503 engine_unavailable at create otherwise). */
  engineAvailable: boolean;
  /** Why it cannot, with how to fix it (said in that 503). */
  engineUnavailable?: string | undefined;
  now: () => number;
  logger: Logger;
}

export type ClaimResult =
  | { ok: true; session: StreamSessionRow; account: AccountRow }
  | { ok: false; reason: 'invalid' | 'blocked' | 'too_many' };

export interface Settlement {
  duration: number;
  minutesBilled: number;
  costMinor: number;
}

export function createStreamService(deps: StreamServiceDeps) {
  const { db, ledger, prices, config, logger } = deps;
  const store = createStreamSessionStore(db);
  const owner = `stream-${randomUUID()}`;
  const iso = (offsetMs = 0) => new Date(deps.now() + offsetMs).toISOString();
  const pricePerMinute = prices.transcribe_lightning;
  let sweeper: NodeJS.Timeout | undefined;

  const tooManySessions = () =>
    new ApiError(
      429,
      'too_many_concurrent_jobs',
      `At most ${config.maxSessions} stream sessions of an account can be open at once; end one first.`,
      null,
      { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    );

  async function release(row: StreamSessionRow): Promise<void> {
    if (row.reservation_id) await ledger.settle(row.reservation_id, 0);
  }

  async function finishTask(id: string, status: 'completed' | 'failed' | 'cancelled', fields: object = {}) {
    await db('transcriptions')
      .where({ id, mode: 'stream' })
      .whereIn('status', ['processing'])
      .update({ status, progress: status === 'completed' ? 100 : 0, completed_at: iso(), ...fields });
  }

  const service = {
    owner,

    async create(account: AccountRow, origin: string): Promise<StreamSession> {
      if (!deps.engineAvailable) {
        throw deps.engineUnavailable
          ? taskFailures.engineMissing(deps.engineUnavailable)
          : new ApiError(503, 'engine_unavailable', 'No streaming transcription engine is available on this server.');
      }
      // Counted here first so a full account is refused before anything is reserved, and again below, under the
      // limit's lock, where the session row is inserted (another node may have filled the last place meanwhile).
      if ((await store.countOpen(account.id, iso())) >= config.maxSessions) throw tooManySessions();
      const fresh = (await db<AccountRow>('accounts').where({ id: account.id }).first())!;
      const available = availableMinor(fresh);
      if (available <= 0) throw errors.insufficientBalance('The available balance is zero or below.');
      const amount = Math.min(config.reserveMinutes * pricePerMinute, available);
      const id = randomUUID();
      const reservation = await ledger.reserve(account.id, amount, `stream:${id}`);
      const ticket = newTicket();
      const expiresAt = iso(deps.ticketTtlSeconds * 1000);
      const minutes = pricePerMinute > 0 ? Math.floor(amount / pricePerMinute) : config.reserveMinutes;
      try {
        await withAccountLimit(db, 'open_stream_sessions', account.id, async (trx) => {
          if ((await store.countOpen(account.id, iso(), { trx })) >= config.maxSessions) throw tooManySessions();
          await store.insert(
            {
              id,
              account_id: account.id,
              ticket_hash: ticketHash(ticket),
              status: 'created',
              reservation_id: reservation.id,
              reserved_seconds: minutes * 60,
              expires_at: expiresAt,
              lease_owner: null,
              lease_expires_at: null,
              config: null,
              duration_seconds: null,
              minutes_billed: null,
              cost_minor: null,
              end_reason: null,
              created_at: iso(),
              connected_at: null,
              ended_at: null,
            },
            trx,
          );
        });
      } catch (error) {
        await ledger.settle(reservation.id, 0);
        throw error;
      }
      const wsOrigin = origin.replace(/^http/, 'ws');
      return {
        session_id: id,
        stream_url: `${wsOrigin}/v3/transcriptions/stream?ticket=${encodeURIComponent(ticket)}`,
        expires_at: expiresAt,
      };
    },

    /** Claims a ticket for this connection; an expired one is settled on the spot (its reservation released). */
    async claim(ticket: string): Promise<ClaimResult> {
      const hash = ticketHash(ticket);
      const claimed = await store.claim(hash, owner, iso(), iso(config.leaseMs));
      const row = await store.findByTicket(hash);
      if (!claimed || !row) {
        if (row?.status === 'created') await service.expire(row);
        return { ok: false, reason: 'invalid' };
      }
      const account = (await db<AccountRow>('accounts').where({ id: row.account_id }).first())!;
      if (toBool(account.blocked)) {
        await service.drop(row, 'user_blocked');
        return { ok: false, reason: 'blocked' };
      }
      if ((await store.countOpen(row.account_id, iso(), { onlyConnected: true })) > config.maxSessions) {
        await service.drop(row, 'too_many_sessions');
        return { ok: false, reason: 'too_many' };
      }
      return { ok: true, session: row, account };
    },

    /** The session frame arrived: its settings are kept and the task row that usage statistics count is written. */
    async start(row: StreamSessionRow, applied: StreamAppliedConfig): Promise<void> {
      await store.update(row.id, { config: JSON.stringify(applied) });
      await db('transcriptions').insert({
        id: row.id,
        account_id: row.account_id,
        status: 'processing',
        mode: 'stream',
        api_version: 'v3',
        priority: 'lightning',
        source_type: 'stream',
        filename: 'stream',
        language: applied.language,
        diarization: applied.diarization,
        progress: 0,
        created_at: iso(),
        started_at: iso(),
        reservation_id: row.reservation_id,
      });
    },

    /** Grows the reservation by one minute of audio; false when the balance cannot cover it (close 4402). */
    async extend(row: StreamSessionRow): Promise<boolean> {
      if (!row.reservation_id || !(await ledger.extend(row.reservation_id, pricePerMinute))) return false;
      row.reserved_seconds += 60;
      await store.update(row.id, { reserved_seconds: row.reserved_seconds });
      return true;
    },

    async renew(row: StreamSessionRow): Promise<boolean> {
      return store.renew(row.id, owner, iso(config.leaseMs));
    },

    /**
     * A charged ending: captures the audio's minutes, rounded up (0 s is 0 minutes, nothing captured), and releases
     * the rest of the reservation. `endReason` is null for the clean `end`, otherwise the close code or its cause.
     */
    async complete(
      row: StreamSessionRow,
      durationSeconds: number,
      endReason: string | null = null,
    ): Promise<Settlement> {
      const priced = quote({ type: 'stream', duration_seconds: durationSeconds }, prices);
      const minutesBilled = durationSeconds > 0 ? (priced.minutesBilled ?? 0) : 0;
      const costMinor = minutesBilled > 0 ? priced.amountMinor : 0;
      const ended = await store.end(row.id, ['connected'], {
        status: 'completed',
        duration_seconds: durationSeconds,
        minutes_billed: minutesBilled,
        cost_minor: costMinor,
        end_reason: endReason,
        ended_at: iso(),
      });
      if (!ended) throw new Error('the session was ended by someone else');
      if (row.reservation_id)
        await ledger.settle(row.reservation_id, costMinor, captureDescription(row.id, minutesBilled));
      await finishTask(row.id, 'completed', {
        duration_seconds: durationSeconds,
        minutes_billed: minutesBilled,
        cost_minor: costMinor,
      });
      return { duration: durationSeconds, minutesBilled, costMinor };
    },

    /** Sessions this process holds whose account was blocked since they were claimed. */
    async blockedSessions(): Promise<string[]> {
      return store.heldOfBlockedAccounts(owner);
    },

    /** An uncharged ending of a connected session (see the module comment). `reason` is the close code or cause. */
    async drop(row: StreamSessionRow, reason: string, durationSeconds: number | null = null): Promise<void> {
      const ended = await store.end(row.id, ['connected'], {
        status: 'dropped',
        end_reason: reason,
        duration_seconds: durationSeconds,
        ended_at: iso(),
      });
      if (!ended) return;
      await release(row);
      await finishTask(row.id, droppedTaskStatus(reason), {
        duration_seconds: durationSeconds,
      });
    },

    /** An unused ticket past its expiry: the reservation goes back to the balance. */
    async expire(row: StreamSessionRow): Promise<void> {
      if (new Date(row.expires_at).getTime() > deps.now()) return;
      const ended = await store.end(row.id, ['created'], { status: 'expired', end_reason: 'expired', ended_at: iso() });
      if (ended) await release(row);
    },

    /**
     * Expired tickets, sessions of processes that stopped renewing, and what a stopped process left half-done: an
     * ended session's reservation still held (settled with what the ended row says it cost: nothing unless completed)
     * or its task row still `processing`.
     */
    async sweep(): Promise<number> {
      let settled = 0;
      for (const row of await store.abandoned(iso())) {
        if (row.status === 'created') await service.expire(row);
        else {
          const ended = await store.end(row.id, ['connected'], {
            status: 'dropped',
            end_reason: 'lease_expired',
            ended_at: iso(),
          });
          if (!ended) continue;
          await release(row);
          await finishTask(row.id, 'failed');
        }
        settled += 1;
      }
      for (const row of await store.endedWithActiveReservation()) {
        const charge = row.status === 'completed' ? Number(row.cost_minor ?? 0) : 0;
        if (await ledger.settle(row.reservation_id!, charge, captureDescription(row.id, Number(row.minutes_billed))))
          settled += 1;
      }
      for (const row of await store.endedWithProcessingTask()) {
        if (row.status === 'completed')
          await finishTask(row.id, 'completed', {
            duration_seconds: row.duration_seconds,
            minutes_billed: row.minutes_billed,
            cost_minor: row.cost_minor,
          });
        else
          await finishTask(row.id, droppedTaskStatus(row.end_reason), {
            duration_seconds: row.duration_seconds,
          });
      }
      return settled;
    },

    /** Sweeps now (startup) and then every `sweepMs`. */
    startSweeper(): void {
      const run = () =>
        service.sweep().catch((err: unknown) => logger.error({ err }, 'stream sweeper failed; retrying later'));
      void run();
      sweeper = setInterval(() => void run(), config.sweepMs);
      sweeper.unref();
    },

    stopSweeper(): void {
      clearInterval(sweeper);
    },
  };
  return service;
}

export type StreamService = ReturnType<typeof createStreamService>;
