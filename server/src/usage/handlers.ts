// GET /v1/billing/usage: counts of the account's transcription tasks created in the range, and billed minutes and
// charges of the completed ones, grouped by priority and status (stream sessions count as lightning).
import type { UsageStatistics } from '../../../generated/client/types.gen.ts';
import type { Database } from '../db/database.ts';
import { fromMinor } from '../db/rows.ts';
import { accountOf, type HandlerGroup } from '../http/operation.ts';
import { resolvePeriod } from './period.ts';

interface Group {
  priority: string;
  mode: string;
  status: string;
  count: number | string;
  minutes: number | string | null;
  cost: number | string | null;
}

export async function usageOf(
  db: Database,
  accountId: string,
  range: { from: string; to: string },
): Promise<UsageStatistics> {
  const end = new Date(`${range.to}T00:00:00Z`);
  end.setUTCDate(end.getUTCDate() + 1);
  const groups = (await db('transcriptions')
    .where({ account_id: accountId })
    .andWhere('created_at', '>=', `${range.from}T00:00:00.000Z`)
    .andWhere('created_at', '<', end.toISOString())
    .select('priority', 'mode', 'status')
    .count({ count: '*' })
    .sum({ minutes: 'minutes_billed', cost: 'cost_minor' })
    .groupBy('priority', 'mode', 'status')) as Group[];
  const usage: UsageStatistics = {
    period: range,
    total_transcriptions: 0,
    total_minutes: 0,
    total_cost: 0,
    by_priority: { lightning: { count: 0, minutes: 0, cost: 0 }, queue: { count: 0, minutes: 0, cost: 0 } },
    by_status: { completed: 0, failed: 0, cancelled: 0 },
  };
  let totalCostMinor = 0;
  const costMinor = { lightning: 0, queue: 0 };
  for (const group of groups) {
    const bucket = group.mode === 'stream' || group.priority === 'lightning' ? 'lightning' : 'queue';
    const count = Number(group.count);
    const completed = group.status === 'completed';
    const minutes = completed ? Number(group.minutes ?? 0) : 0;
    const cost = completed ? Number(group.cost ?? 0) : 0;
    usage.total_transcriptions += count;
    usage.total_minutes += minutes;
    totalCostMinor += cost;
    usage.by_priority[bucket].count += count;
    usage.by_priority[bucket].minutes += minutes;
    costMinor[bucket] += cost;
    if (group.status === 'completed' || group.status === 'failed' || group.status === 'cancelled') {
      usage.by_status[group.status] += count;
    }
  }
  usage.total_cost = fromMinor(totalCostMinor);
  usage.by_priority.lightning.cost = fromMinor(costMinor.lightning);
  usage.by_priority.queue.cost = fromMinor(costMinor.queue);
  return usage;
}

export function usageHandlers(db: Database): HandlerGroup {
  return {
    getBillingUsage: async (request) => ({
      status: 200,
      body: await usageOf(db, accountOf(request).id, resolvePeriod(request.query)),
    }),
  };
}
