// money_precision: amounts of money on the wire have at most 2 decimals (the contract: money is stored in minor
// units and sent as "a number with at most 2 decimals, in the account currency"). Every answer's JSON body is walked
// for the fields the documents use for money — balances, costs, quoted and ledger amounts — and each number there is
// judged; `unit_price` is not money (a per-token price may have more decimals).
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import type { Finding } from '../core/types.ts';

export const MONEY_FIELDS: ReadonlySet<string> = new Set([
  'amount',
  'cost',
  'total_cost',
  'balance',
  'balance_after',
  'credit_limit',
  'overdraft_used',
  'available',
  'available_credit',
]);

// Judged on the number as JSON writes it (the shortest decimal that reads back as the same double), not by
// arithmetic: `value * 100` of a large amount such as 276571807.22 is off by more than any fixed tolerance.
function twoDecimals(value: number): boolean {
  const written = String(value);
  if (/e-/i.test(written)) return false;
  if (/e\+/i.test(written)) return true;
  const dot = written.indexOf('.');
  return dot < 0 || written.length - dot - 1 <= 2;
}

/** `path: value` of each money field whose number has more than 2 decimals. */
function overPrecise(value: unknown, path: string, found: string[], depth = 0): void {
  if (!value || typeof value !== 'object' || depth > 8 || found.length >= 5) return;
  for (const [key, child] of Object.entries(value)) {
    const at = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`;
    if (typeof child === 'number' && MONEY_FIELDS.has(key) && !twoDecimals(child)) found.push(`${at} = ${child}`);
    else overPrecise(child, at, found, depth + 1);
  }
}

export function money_precision({ exchange }: ResponseContext): Finding[] {
  const found: string[] = [];
  overPrecise(exchange.response.body, '$', found);
  if (found.length === 0) return [];
  return [
    {
      title: 'An amount of money has more than 2 decimals',
      message: found.join('; '),
      severity: 'medium',
    },
  ];
}

registerCheck('money_precision', 'response', money_precision);
