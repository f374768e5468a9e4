// billing_consistency: what `calculate` quoted for the task is what the account was charged for it (the
// ledger's capture and the balance change), and what the task itself reports as its cost.
import { registerCheck } from '../core/registry.ts';
import type { Finding } from '../core/types.ts';

export interface BillingTrace {
  task: string;
  quoted: number;
  /** Sources of what was charged: name → amount (e.g. ledger capture, balance change, task cost). */
  charged: Record<string, number | undefined>;
}

const cents = (amount: number) => Math.round(amount * 100);

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
  return findings;
}

registerCheck('billing_consistency', 'trace', billing_consistency);
