// quote_arithmetic: a v2 cost calculation is the arithmetic the document states, judged on every 200 answer of
// POST /v2/transcriptions/calculate whose request gave a `duration` (MM:SS): `durationSeconds` is that duration,
// `durationMinutes` is it in minutes (to the 2 decimals money and durations are written with), `minutesBilled` is
// it rounded up ("Transcription is billed in minutes (rounded up)": 01:10 is 2 minutes, never 1). `cost` is `minutesBilled`
// times a price the document does not give, so it is not judged here. The schema can say none of this: each is a
// relation between a field and what the request sent.
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import type { Finding } from '../core/types.ts';

interface V2Quote {
  durationSeconds?: unknown;
  durationMinutes?: unknown;
  minutesBilled?: unknown;
}

const secondsOf = (duration: unknown): number | undefined => {
  const match = typeof duration === 'string' ? /^(\d{1,4}):([0-5]\d)$/.exec(duration) : null;
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
};

export function quote_arithmetic({ exchange }: ResponseContext): Finding[] {
  const { status, body } = exchange.response;
  if (status !== 200 || new URL(exchange.request.url).pathname !== '/v2/transcriptions/calculate') return [];
  const sent = exchange.request.body?.kind === 'json' ? (exchange.request.body.value as { duration?: unknown }) : {};
  const seconds = secondsOf(sent?.duration);
  const quote = body as V2Quote | undefined;
  if (seconds === undefined || !quote || typeof quote !== 'object') return [];
  const wrong: string[] = [];
  const minutes = Math.ceil(seconds / 60);
  if (typeof quote.durationSeconds === 'number' && quote.durationSeconds !== seconds)
    wrong.push(`durationSeconds ${quote.durationSeconds} (expected ${seconds})`);
  if (typeof quote.durationMinutes === 'number' && Math.abs(quote.durationMinutes - seconds / 60) > 0.005)
    wrong.push(`durationMinutes ${quote.durationMinutes} (expected ${(seconds / 60).toFixed(2)})`);
  if (typeof quote.minutesBilled === 'number' && quote.minutesBilled !== minutes)
    wrong.push(`minutesBilled ${quote.minutesBilled} (expected ${minutes}: minutes are rounded up)`);
  if (wrong.length === 0) return [];
  return [
    {
      title: 'A v2 cost calculation is not its duration rounded up to whole minutes',
      message: `duration ${String(sent.duration)}: ${wrong.join('; ')}`,
      severity: 'high',
    },
  ];
}

registerCheck('quote_arithmetic', 'response', quote_arithmetic);
