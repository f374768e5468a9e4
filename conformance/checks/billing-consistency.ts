// billing_consistency: what `calculate` quoted for the task is what the account was charged for it (the
// ledger's capture and the balance change), and what the task itself reports as its cost; a completed task
// carries its billing fields ("Billed minutes, rounded up; present on a completed task": `minutes_billed`,
// `duration_minutes`, `cost`), since the schema cannot make them required in one state only.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface BillingTrace {
  task: string;
  quoted: number;
  /** Sources of what was charged: name → amount (e.g. ledger capture, balance change, task cost). */
  charged: Record<string, number | undefined>;
  /** The task's read that showed it completed: it must carry the billing fields. */
  completed?: Exchange;
}

const cents = (amount: number) => Math.round(amount * 100);

/** The fields a completed v3 task reports its billing in. */
export const COMPLETED_BILLING_FIELDS = ['minutes_billed', 'duration_minutes', 'cost'] as const;

export function billing_consistency(trace: BillingTrace) {
  const findings: Finding[] = [];
  for (const [source, amount] of Object.entries(trace.charged)) {
    if (amount === undefined) continue;
    if (cents(amount) === cents(trace.quoted)) continue;
    findings.push({
      title: 'Charge differs from the quote',
      message: `Task ${trace.task}: calculate quoted ${trace.quoted}, ${source} shows ${amount}`,
      severity: 'high',
    });
  }
  const data = (trace.completed?.response.body as { data?: Record<string, unknown> } | undefined)?.data;
  if (trace.completed && data?.status === 'completed') {
    const missing = COMPLETED_BILLING_FIELDS.filter((field) => typeof data[field] !== 'number');
    if (missing.length > 0)
      findings.push({
        title: 'A completed task without its billing fields',
        message: `Task ${trace.task}: ${missing.map((field) => `${field} ${JSON.stringify(data[field])}`).join(', ')}`,
        severity: 'high',
        exchange: trace.completed,
      });
  }
  return findings;
}

registerCheck('billing_consistency', 'trace', billing_consistency);
