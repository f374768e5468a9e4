// quote_leaves_no_record: a v2 quote ("No record is created") leaves the account as it found it — the balance and
// the available amount, the ledger's entries and the account's task list read before and after it are the same.
// A relation between calls the schema cannot express; the scenario runs it on an account no other work touches.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface AccountSnapshot {
  balance?: number;
  available?: number;
  /** The ids of the account's ledger entries (admin token). */
  ledger?: string[];
  /** The ids of the account's transcriptions. */
  tasks?: string[];
}

export interface NoRecordTrace {
  quote: Exchange;
  before: AccountSnapshot;
  after: AccountSnapshot;
}

const cents = (amount: number) => Math.round(amount * 100);
const added = (before: string[], after: string[]) => after.filter((id) => !before.includes(id));

export function quote_leaves_no_record(trace: NoRecordTrace): Finding[] {
  if (trace.quote.response.status !== 200) return [];
  const { before, after } = trace;
  const changes: string[] = [];
  for (const field of ['balance', 'available'] as const) {
    const was = before[field];
    const is = after[field];
    if (was !== undefined && is !== undefined && cents(was) !== cents(is)) changes.push(`${field} ${was} → ${is}`);
  }
  if (before.ledger && after.ledger) {
    const entries = added(before.ledger, after.ledger);
    if (entries.length > 0) changes.push(`${entries.length} new ledger entr${entries.length === 1 ? 'y' : 'ies'}`);
  }
  if (before.tasks && after.tasks) {
    const tasks = added(before.tasks, after.tasks);
    if (tasks.length > 0) changes.push(`new task ${tasks.join(', ')}`);
  }
  if (changes.length === 0) return [];
  return [
    {
      title: 'A v2 quote left a record',
      message: `around POST /v2/transcriptions/calculate: ${changes.join('; ')}`,
      severity: 'high',
      exchange: trace.quote,
    },
  ];
}

registerCheck('quote_leaves_no_record', 'trace', quote_leaves_no_record);
