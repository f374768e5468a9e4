// Pricing from the config's price table: per started minute for transcription, per 1,000 tokens for chat and
// embeddings. Each breakdown line is rounded half up to whole minor units; the amount is the sum of the lines.
import type { PriceBreakdownItem, PriceCalculationRequest } from '../../../generated/client/types.gen.ts';
import type { PriceTable } from '../config.ts';
import { fromMinor } from '../db/rows.ts';

export interface Quote {
  amountMinor: number;
  minutesBilled?: number;
  breakdown: PriceBreakdownItem[];
}

export const minutesBilled = (durationSeconds: number): number => Math.ceil(durationSeconds / 60);

function line(
  item: keyof PriceTable,
  quantity: number,
  unit: 'minute' | 'token',
  prices: PriceTable,
): PriceBreakdownItem & { minor: number } {
  const perUnitMinor = unit === 'minute' ? prices[item] : prices[item] / 1000;
  const minor = Math.round(quantity * perUnitMinor);
  return { item, quantity, unit, unit_price: perUnitMinor / 100, amount: fromMinor(minor), minor };
}

export function quote(request: PriceCalculationRequest, prices: PriceTable): Quote {
  const lines: (PriceBreakdownItem & { minor: number })[] = [];
  let minutes: number | undefined;
  switch (request.type) {
    case 'transcription':
    case 'stream': {
      minutes = minutesBilled(request.duration_seconds);
      const priority = request.type === 'stream' ? 'lightning' : (request.priority ?? 'queue');
      lines.push(line(`transcribe_${priority}`, minutes, 'minute', prices));
      break;
    }
    case 'chat':
      lines.push(line(`${request.model}_prompt_tokens`, request.prompt_tokens, 'token', prices));
      lines.push(line(`${request.model}_completion_tokens`, request.completion_tokens, 'token', prices));
      break;
    case 'embedding':
      lines.push(line('service-embedding_tokens', request.tokens, 'token', prices));
      break;
  }
  return {
    amountMinor: lines.reduce((sum, l) => sum + l.minor, 0),
    minutesBilled: minutes,
    breakdown: lines.map(({ minor: _minor, ...rest }) => rest),
  };
}
