// How many batch transcription tasks wait for a worker, for GET /health: unfinished tasks whose lease is free or
// expired, i.e. the tasks the job queue's claim (transcriptions/jobs.ts) would hand out. Shared by every process on
// the database, so any node reports the same depth.
import type { Database } from '../db/database.ts';
import { UNFINISHED } from '../transcriptions/jobs.ts';

export async function countQueuedJobs(db: Database): Promise<number> {
  const [row] = await db('transcriptions')
    .whereIn('mode', ['sync', 'async'])
    .whereIn('status', [...UNFINISHED])
    .andWhere((free) => free.whereNull('lease_expires_at').orWhere('lease_expires_at', '<', new Date().toISOString()))
    .count({ n: '*' });
  return Number(row?.n ?? 0);
}
