// 10 requests per second per account (rate-limiter-flexible): an in-memory store on SQLite, and a PostgreSQL table
// when DATABASE_URL is set, so the limit holds across several server processes sharing the database.
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Database } from '../db/database.ts';
import { databaseKind } from '../db/database.ts';
import { errors } from './api-error.ts';

export interface RateLimitHeaders {
  'RateLimit-Limit': string;
  'RateLimit-Remaining': string;
  'RateLimit-Reset': string;
}

export interface RateLimit {
  /** Counts one request of the account; throws 429 with Retry-After when over the limit; undefined when off. */
  consume(accountId: string): Promise<RateLimitHeaders | undefined>;
}

const headersOf = (limit: number, result: RateLimiterRes): RateLimitHeaders => ({
  'RateLimit-Limit': String(limit),
  'RateLimit-Remaining': String(Math.max(0, result.remainingPoints)),
  'RateLimit-Reset': String(Math.ceil(result.msBeforeNext / 1000)),
});

export async function createRateLimit(db: Database, requestsPerSecond: number): Promise<RateLimit> {
  if (requestsPerSecond === 0) {
    // Off (benchmarks, tests that poll): no counting and no RateLimit-* headers (a limit of 0 would be a lie).
    return { consume: async () => undefined };
  }
  const options = { points: requestsPerSecond, duration: 1, keyPrefix: 'rps' };
  let limiter: RateLimiterAbstract;
  if (databaseKind(db) === 'postgres') {
    // The table comes from the migrations (tableCreated), so the limiter is ready at once.
    limiter = new RateLimiterPostgres({
      ...options,
      storeClient: db,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true,
    });
  } else {
    limiter = new RateLimiterMemory(options);
  }
  return {
    async consume(accountId) {
      try {
        return headersOf(requestsPerSecond, await limiter.consume(accountId));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        throw errors.rateLimited(requestsPerSecond, retryAfter, { ...headersOf(requestsPerSecond, rejection) });
      }
    },
  };
}
