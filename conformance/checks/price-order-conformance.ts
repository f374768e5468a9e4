// price_order_conformance: the document calls `queue` the cheaper priority, so a quote of the same audio at `queue`
// costs less than at `lightning` (POST /v3/billing/calculate, both answers 200). A server whose price table has them
// equal or the other way round fails.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface PriceOrderTrace {
  queue: Exchange;
  lightning: Exchange;
}

const amountOf = (exchange: Exchange) => {
  const amount = (exchange.response.body as { amount?: unknown } | undefined)?.amount;
  return exchange.response.status === 200 && typeof amount === 'number' ? amount : undefined;
};

export function price_order_conformance(trace: PriceOrderTrace): Finding[] {
  const queue = amountOf(trace.queue);
  const lightning = amountOf(trace.lightning);
  if (queue === undefined || lightning === undefined)
    return [
      {
        title: 'A price quote could not be read',
        message: `queue answered ${trace.queue.response.status}, lightning ${trace.lightning.response.status}; both must be 200 with an amount`,
        severity: 'medium',
        exchange: queue === undefined ? trace.queue : trace.lightning,
      },
    ];
  if (queue < lightning) return [];
  return [
    {
      title: 'The queue priority is not the cheaper one',
      message: `the same audio quoted ${queue} at queue and ${lightning} at lightning`,
      severity: 'medium',
      exchange: trace.queue,
    },
  ];
}

registerCheck('price_order_conformance', 'trace', price_order_conformance);
