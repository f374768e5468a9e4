// Observing reservations from outside for reservation_consistency: the balance and the available amount of an
// account as a price quote reports them (it reserves and charges nothing), read around and during a task, and the
// ledger entries naming the work when an admin token allows reading the ledger. Every read sends its own
// X-Request-Id, which request_id_echo expects back.
import { randomUUID } from 'node:crypto';
import type { BalanceReading, ReservationTrace } from '../../checks/reservation-consistency.ts';
import { sleep } from '../../core/rate-limiter.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { Exchange } from '../../core/types.ts';
import { bodyOf, call, pollTask, type Actor } from './steps.ts';

/** States in which a task holds its reservation: an upload is reserved at create, a link once it is downloaded. */
const HOLDING = new Set(['ready', 'processing']);
const MAX_HOLDING_READS = 3;

export async function readBalance(run: RunContext, actor: Actor, label: string): Promise<BalanceReading | undefined> {
  // on an account the scenarios share, another scenario's work would move the balance: no reading
  if (!run.accounts.provision) return undefined;
  const exchange = await call(run, actor, 'calculatePrice', {
    label: `balance ${label}`,
    headers: { 'X-Request-Id': randomUUID() },
    body: { type: 'transcription', duration_seconds: 60, priority: 'queue' },
    expectation: { kind: 'positive' },
  });
  return readingOf(exchange);
}

export function readingOf(exchange: Exchange | undefined): BalanceReading | undefined {
  const balance = bodyOf<{ balance?: { balance?: unknown; available_credit?: unknown } }>(exchange)?.balance;
  if (exchange?.response.status !== 200 || typeof balance?.balance !== 'number') return undefined;
  if (typeof balance.available_credit !== 'number') return undefined;
  return { balance: balance.balance, available: balance.available_credit, exchange };
}

/** Reads the balance until `settled` holds or `waitMs` passes; the last read is returned either way. */
export async function settledBalance(
  run: RunContext,
  actor: Actor,
  label: string,
  settled: (reading: BalanceReading) => boolean,
  waitMs = 10_000,
): Promise<BalanceReading | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const reading = await readBalance(run, actor, label);
    if (!reading || settled(reading) || Date.now() > deadline) return reading;
    await sleep(500);
  }
}

/** The ledger entries whose reference names `subject` (undefined without an admin token and account id). */
export async function ledgerFor(
  run: RunContext,
  actor: Actor,
  subject: string,
): Promise<Array<{ kind: string; amount: number }> | undefined> {
  if (!actor.id || !run.client.adminToken) return undefined;
  const exchange = await call(run, actor, 'listAccountLedger', {
    label: 'read the ledger',
    path: { id: actor.id },
    query: { limit: 100 },
  });
  const entries = bodyOf<{ data?: Array<{ kind: string; amount: number; reference: string | null }> }>(exchange)?.data;
  // the document's example reference is the bare id; a prefixed one (`transcription:<id>`) also names it
  return entries?.filter((e) => (e.reference ?? '').includes(subject));
}

const statusOf = (exchange: Exchange | undefined) => bodyOf<{ data?: { status?: string } }>(exchange)?.data?.status;

/**
 * Polls a task to a final state with a balance read after every non-final poll. A read counts as taken while the
 * task holds its reservation when the status read before it (`initial` for the create) and the one after it both
 * show a holding state.
 */
export async function pollWithBalance(
  run: RunContext,
  actor: Actor,
  taskId: string,
  initial: string | undefined,
): Promise<{ observations: Exchange[]; holding: BalanceReading[] }> {
  const reads: Array<{ reading: BalanceReading; polls: number }> = [];
  const first = await readBalance(run, actor, 'right after the create');
  if (first) reads.push({ reading: first, polls: 0 });
  const observations = await pollTask(run, actor, taskId, async (polls, last) => {
    // a few reads show the hold; more would only slow a long task's polling (each one counts toward the rate limit).
    // They are taken once the task holds its reservation: a link's task spends its first polls created and
    // downloading, and reads taken then would use up the few before it is reserved.
    if (reads.length >= MAX_HOLDING_READS) return;
    const status = statusOf(last);
    if (!status || !HOLDING.has(status)) return;
    const reading = await readBalance(run, actor, 'while the task runs');
    if (reading) reads.push({ reading, polls });
  });
  const holding = reads
    .filter(({ polls }) => {
      const before = polls === 0 ? initial : statusOf(observations[polls - 1]);
      const after = statusOf(observations[polls]);
      return before !== undefined && after !== undefined && HOLDING.has(before) && HOLDING.has(after);
    })
    .map(({ reading }) => reading);
  return { observations, holding };
}

/** The reads after a task ended: settled, then again after two more status reads; judged by the check. */
export async function traceTaskReservation(
  run: RunContext,
  actor: Actor,
  taskId: string,
  observed: { before: BalanceReading | undefined; holding: BalanceReading[]; observations: Exchange[] },
): Promise<Exchange[]> {
  const last = bodyOf<{
    data?: { status?: string; cost?: number; duration_minutes?: number; minutes_billed?: number };
  }>(observed.observations.at(-1))?.data;
  const { before } = observed;
  if (!before || !last?.status || !['completed', 'failed', 'cancelled'].includes(last.status)) return [];
  const captured = last.status === 'completed';
  const cents = (amount: number) => Math.round(amount * 100);
  const after = await settledBalance(run, actor, 'after the task ended', (reading) =>
    captured
      ? cents(reading.available) - cents(before.available) === cents(reading.balance) - cents(before.balance)
      : cents(reading.available) === cents(before.available),
  );
  const again: Exchange[] = [];
  for (const label of ['read the finished task again', 'and once more']) {
    const exchange = await call(run, actor, 'getTranscriptionStatus', { label, path: { id: taskId } });
    if (exchange) again.push(exchange);
  }
  const trace: ReservationTrace = {
    subject: `task ${taskId}`,
    outcome: captured ? 'captured' : 'released',
    cost: captured ? last.cost : undefined,
    minutes:
      captured && typeof last.duration_minutes === 'number' && typeof last.minutes_billed === 'number'
        ? { durationMinutes: last.duration_minutes, billed: last.minutes_billed }
        : undefined,
    before,
    holding: observed.holding,
    after,
    later: await readBalance(run, actor, 'after further reads'),
    ledger: await ledgerFor(run, actor, taskId),
  };
  run.trace('reservation_consistency', trace, 'stateful', 'calculatePrice');
  return again;
}
