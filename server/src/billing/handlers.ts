// Price calculation without charging: POST /v3/billing/calculate and POST /v2/transcriptions/calculate (MM:SS).
import type { Database } from '../db/database.ts';
import type { PriceTable } from '../config.ts';
import { fromMinor } from '../db/rows.ts';
import { errors } from '../http/api-error.ts';
import { accountOf, type HandlerGroup } from '../http/operation.ts';
import { balanceOf } from './balance.ts';
import { quote } from './prices.ts';

/** Parses the v2 duration `MM:SS` (minutes may exceed 59) into seconds; `0:00` is not a duration. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,4}):([0-5]\d)$/.exec(text);
  const seconds = match ? Number(match[1]) * 60 + Number(match[2]) : 0;
  if (seconds === 0)
    throw errors.invalidParameter('duration', 'The duration must have the form MM:SS and be longer than 0:00.');
  return seconds;
}

export function billingHandlers(db: Database, prices: PriceTable): HandlerGroup {
  return {
    calculatePrice: async (request) => {
      const account = accountOf(request);
      const priced = quote(request.body, prices);
      return {
        status: 200,
        body: {
          amount: fromMinor(priced.amountMinor),
          currency: account.currency,
          ...(priced.minutesBilled === undefined ? {} : { minutes_billed: priced.minutesBilled }),
          breakdown: priced.breakdown,
          balance: await balanceOf(db, account.id),
        },
      };
    },
    calculateV2TranscriptionCost: async (request) => {
      const account = accountOf(request);
      const durationSeconds = parseDuration(request.body.duration);
      const priced = quote(
        { type: 'transcription', duration_seconds: durationSeconds, priority: request.body.priority },
        prices,
      );
      return {
        status: 200,
        body: {
          durationSeconds,
          durationMinutes: Math.round((durationSeconds / 60) * 100) / 100,
          minutesBilled: priced.minutesBilled!,
          cost: fromMinor(priced.amountMinor),
          balance: await balanceOf(db, account.id),
          ...(request.body.filename === undefined ? {} : { filename: request.body.filename }),
          ...(request.body.file_size === undefined ? {} : { fileSize: request.body.file_size }),
        },
      };
    },
  };
}
