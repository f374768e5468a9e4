// no_overspend_conformance: creates sent at the same moment by an account whose available funds pay for exactly one
// of them are accepted at most once — the others are refused 402 — so concurrency cannot spend money the account
// does not have (the contract: "No overspend under concurrency: reservation is one atomic statement").
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface OverspendTrace {
  /** How many of the creates the available funds pay for. */
  affordable: number;
  /** The answers to the creates sent at once. */
  answers: Exchange[];
}

const accepted = (exchange: Exchange) => exchange.response.status >= 200 && exchange.response.status < 300;

export function no_overspend_conformance(trace: OverspendTrace): Finding[] {
  const findings: Finding[] = [];
  const taken = trace.answers.filter(accepted);
  if (taken.length > trace.affordable)
    findings.push({
      title: 'Concurrent creates spent more than the account had',
      message: `${taken.length} of ${trace.answers.length} creates sent at once were accepted; the funds paid for ${trace.affordable}`,
      severity: 'critical',
      exchange: taken.at(-1),
    });
  const other = trace.answers.find((e) => !accepted(e) && e.response.status !== 402);
  if (other)
    findings.push({
      title: 'A create refused for lack of funds was not 402',
      message: `a create past the funds was answered ${other.response.status}`,
      severity: 'medium',
      exchange: other,
    });
  return findings;
}

registerCheck('no_overspend_conformance', 'trace', no_overspend_conformance);
