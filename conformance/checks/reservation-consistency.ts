// reservation_consistency: the billing rules of the interface document and the contract decisions, seen from
// outside through the account's balance (`balance` and `available_credit` of a price quote, which reserves
// nothing): funds are reserved when work starts, so while a task or stream session holds its reservation the
// available amount is lower and the balance unchanged; work that fails, is cancelled or drops releases it (balance
// and available back where they were, nothing charged); completed work is captured once (the balance drops by
// exactly the reported cost, the available amount by the same, and nothing more after further reads; its minutes
// are billed rounded up). With an
// admin token the ledger must agree: one capture for completed work, none otherwise, and the subject's reserve and
// release entries summing to zero.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface BalanceReading {
  balance: number;
  available: number;
  exchange?: Exchange;
}

export interface ReservationTrace {
  /** What holds the reservation, for the messages: `task <id>`, `stream session <id>`. */
  subject: string;
  /** `captured`: the work completed and was charged; `released`: it failed, was cancelled or dropped. */
  outcome: 'captured' | 'released';
  /** What the work reports it cost (the task's `cost`, the stream's `session.completed` cost). */
  cost?: number;
  /** What the work reports it lasted and billed: minutes are billed rounded up (the document's billing model). */
  minutes?: { durationMinutes: number; billed: number };
  before: BalanceReading;
  /** Reads taken while the work was known to hold its reservation (both neighbouring status reads said so). */
  holding: BalanceReading[];
  /** The first read once the work ended (or the last one within the suite's wait when it never settled). */
  after?: BalanceReading;
  /** A read after further reads of the finished work. */
  later?: BalanceReading;
  /** The ledger entries naming the subject, when an admin token allows reading the ledger. */
  ledger?: Array<{ kind: string; amount: number }>;
}

const cents = (amount: number) => Math.round(amount * 100);
const money = (minor: number) => (minor / 100).toFixed(2);

export function reservation_consistency(trace: ReservationTrace) {
  const findings: Finding[] = [];
  const { subject, before } = trace;
  const add = (title: string, message: string, reading?: BalanceReading, severity: Finding['severity'] = 'high') =>
    findings.push({ title, message: `${subject}: ${message}`, severity, exchange: reading?.exchange });
  for (const reading of trace.holding) {
    if (cents(reading.available) >= cents(before.available))
      add(
        'No reservation while the work runs',
        `available ${reading.available} while it runs, ${before.available} before it started`,
        reading,
      );
    if (cents(reading.balance) !== cents(before.balance))
      add('Charged before the work ended', `balance ${before.balance} → ${reading.balance} while it runs`, reading);
  }
  const { after, later } = trace;
  const balanceChange = after ? cents(after.balance) - cents(before.balance) : 0;
  const availableChange = after ? cents(after.available) - cents(before.available) : 0;
  if (after && trace.outcome === 'released') {
    if (balanceChange !== 0)
      add('Charged for work that did not complete', `balance ${before.balance} → ${after.balance}`, after);
    if (availableChange !== 0)
      add(
        'Reservation not released',
        `available ${before.available} before, ${after.available} after it ended uncharged`,
        after,
      );
  }
  if (after && trace.outcome === 'captured') {
    if (trace.cost !== undefined && balanceChange !== -cents(trace.cost))
      add('Balance change is not the cost', `cost ${trace.cost}, balance changed by ${money(balanceChange)}`, after);
    if (availableChange !== balanceChange)
      add(
        'Reservation not released after the capture',
        `balance changed by ${money(balanceChange)}, available by ${money(availableChange)}`,
        after,
      );
  }
  if (trace.minutes) {
    // the reported duration is itself rounded (2 decimals): allow that much either way
    const { durationMinutes, billed } = trace.minutes;
    if (!Number.isInteger(billed) || billed < durationMinutes - 0.01 || billed >= durationMinutes + 1.01)
      add(
        'Minutes not rounded up',
        `${durationMinutes} minutes billed as ${billed}; expected ${Math.ceil(durationMinutes - 0.01)}`,
        undefined,
        'medium',
      );
  }
  if (
    after &&
    later &&
    (cents(later.balance) !== cents(after.balance) || cents(later.available) !== cents(after.available))
  )
    add(
      'Balance moved after the work ended',
      `balance ${after.balance} → ${later.balance}, available ${after.available} → ${later.available} on later reads`,
      later,
    );
  if (trace.ledger) {
    const captures = trace.ledger.filter((e) => e.kind === 'capture');
    const expected = trace.outcome === 'captured' ? 1 : 0;
    if (captures.length !== expected)
      add(
        trace.outcome === 'captured' ? 'Not captured exactly once' : 'Captured without completing',
        `${captures.length} capture entries in the ledger, expected ${expected}`,
      );
    if (trace.cost !== undefined && captures.length === 1 && cents(captures[0]!.amount) !== -cents(trace.cost))
      add('Capture is not the cost', `cost ${trace.cost}, ledger capture ${captures[0]!.amount}`);
    const held = trace.ledger
      .filter((e) => e.kind === 'reserve' || e.kind === 'release')
      .reduce((sum, e) => sum + cents(e.amount), 0);
    if (held !== 0) add('Reservation left in the ledger', `reserve and release entries sum to ${money(held)}`);
  }
  return findings;
}

registerCheck('reservation_consistency', 'trace', reservation_consistency);
