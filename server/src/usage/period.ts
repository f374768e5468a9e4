// Resolving the usage range: `period` (current UTC day, ISO week, month or year) or `date_from`/`date_to`
// (inclusive, from ≤ to, at most 366 days); default the current month. Returns dates as YYYY-MM-DD.
import { errors } from '../http/api-error.ts';

export interface DateRange {
  from: string;
  to: string;
}

const day = (date: Date) => date.toISOString().slice(0, 10);
const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d));

export function resolvePeriod(
  query: { period?: string; date_from?: string; date_to?: string },
  today = new Date(),
): DateRange {
  const { period, date_from: from, date_to: to } = query;
  if (period && (from || to))
    throw errors.invalidParameter('period', 'period cannot be combined with date_from or date_to.');
  if (Boolean(from) !== Boolean(to))
    throw errors.invalidParameter(from ? 'date_to' : 'date_from', 'date_from and date_to go together.');
  const y = today.getUTCFullYear();
  const m = today.getUTCMonth();
  const d = today.getUTCDate();
  if (from && to) {
    const start = new Date(`${from}T00:00:00Z`);
    const end = new Date(`${to}T00:00:00Z`);
    if (Number.isNaN(start.getTime()) || day(start) !== from)
      throw errors.invalidParameter('date_from', 'date_from must be a date YYYY-MM-DD.');
    if (Number.isNaN(end.getTime()) || day(end) !== to)
      throw errors.invalidParameter('date_to', 'date_to must be a date YYYY-MM-DD.');
    if (start > end) throw errors.invalidParameter('date_from', 'date_from must not be after date_to.');
    if ((end.getTime() - start.getTime()) / 86_400_000 + 1 > 366)
      throw errors.invalidParameter('date_to', 'The range is at most 366 days.');
    return { from, to };
  }
  switch (period ?? 'month') {
    case 'day':
      return { from: day(today), to: day(today) };
    case 'week': {
      const monday = utc(y, m, d - ((today.getUTCDay() + 6) % 7));
      return {
        from: day(monday),
        to: day(utc(monday.getUTCFullYear(), monday.getUTCMonth(), monday.getUTCDate() + 6)),
      };
    }
    case 'year':
      return { from: day(utc(y, 0, 1)), to: day(utc(y, 11, 31)) };
    default:
      return { from: day(utc(y, m, 1)), to: day(utc(y, m + 1, 0)) };
  }
}
