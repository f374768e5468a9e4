// 10 requests per second per account (rate-limiter-flexible): an in-memory store on SQLite, and a PostgreSQL table
// when DATABASE_URL is set, so the limit holds across several server processes sharing the database. The same stores
// count refused credentials per client address, and per client address and credential, to slow down guessing.
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Database } from '../db/database.ts';
import { databaseKind } from '../db/database.ts';
import { ApiError, errors } from './api-error.ts';

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

function limiterOf(
  db: Database,
  options: { points: number; duration: number; keyPrefix: string },
): RateLimiterAbstract {
  // On PostgreSQL the table comes from the migrations (tableCreated), so the limiter is ready at once.
  return databaseKind(db) === 'postgres'
    ? new RateLimiterPostgres({
        ...options,
        storeClient: db,
        storeType: 'knex',
        tableName: 'rate_limits',
        tableCreated: true,
      })
    : new RateLimiterMemory(options);
}

export async function createRateLimit(db: Database, requestsPerSecond: number): Promise<RateLimit> {
  if (requestsPerSecond === 0) {
    // Off (benchmarks, tests that poll): no counting and no RateLimit-* headers (a limit of 0 would be a lie).
    return { consume: async () => undefined };
  }
  const limiter = limiterOf(db, { points: requestsPerSecond, duration: 1, keyPrefix: 'rps' });
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

export interface FailedAuthSettings {
  /** Refused credentials allowed per client address and window (0: not limited). */
  perAddress: number;
  /** Refused attempts allowed per client address and presented credential and window (0: not limited). */
  perCredential: number;
  windowSeconds: number;
}

/**
 * Refused authentication, counted per client address and per client address with the credential it presented (a
 * public key, or a digest of a Bearer key): over either limit the address gets 429 without its credentials being
 * checked, until the window ends. Only that address is slowed down; every other client, and that credential used from
 * anywhere else, is unaffected.
 */
export interface FailedAuthLimit {
  /**
   * Throws 429 rate_limit_exceeded with Retry-After when the address (or address and credential) is over a limit.
   * `credential` is called only when the counts have to be looked up (its digest is not made for every request).
   */
  check(address: string, credential: () => string): Promise<void>;
  /** Counts one refused attempt. */
  fail(address: string, credential: string): Promise<void>;
}

/** Undefined when both limits are off. */
export function createFailedAuthLimit(db: Database, settings: FailedAuthSettings): FailedAuthLimit | undefined {
  const duration = settings.windowSeconds;
  const limits = [
    { points: settings.perAddress, keyOf: (address: string) => address, keyPrefix: 'authfail_address' },
    {
      points: settings.perCredential,
      keyOf: (address: string, credential: string) => `${address} ${credential}`,
      keyPrefix: 'authfail_credential',
    },
  ]
    .filter((limit) => limit.points > 0)
    .map((limit) => ({
      ...limit,
      limiter: limiterOf(db, { points: limit.points, duration, keyPrefix: limit.keyPrefix }),
    }));
  if (limits.length === 0 || duration <= 0) return undefined;
  // Counted in this process's memory (SQLite: one process), a window with no refusal at all leaves no count that could
  // refuse (each count ends one window after the refusal that began it), so the usual request looks nothing up.
  // PostgreSQL's counts are shared with other processes: always looked up there.
  const countsAreLocal = databaseKind(db) !== 'postgres';
  let lastFailureMs = Number.NEGATIVE_INFINITY;
  return {
    async check(address, presented) {
      if (countsAreLocal && Date.now() - lastFailureMs >= duration * 1000) return;
      const credential = presented();
      const states = await Promise.all(limits.map((limit) => limit.limiter.get(limit.keyOf(address, credential))));
      let refused: { points: number; ms: number } | undefined;
      states.forEach((state, i) => {
        const { points } = limits[i]!;
        if (state && state.consumedPoints >= points && (!refused || state.msBeforeNext > refused.ms)) {
          refused = { points, ms: state.msBeforeNext };
        }
      });
      if (!refused) return;
      const retryAfter = String(Math.max(1, Math.ceil(refused.ms / 1000)));
      throw new ApiError(
        429,
        'rate_limit_exceeded',
        `Too many failed authentication attempts from this address; retry after ${retryAfter} s.`,
        null,
        {
          'RateLimit-Limit': String(refused.points),
          'RateLimit-Remaining': '0',
          'RateLimit-Reset': retryAfter,
          'Retry-After': retryAfter,
        },
      );
    },
    async fail(address, credential) {
      lastFailureMs = Date.now();
      await Promise.all(limits.map((limit) => limit.limiter.penalty(limit.keyOf(address, credential))));
      lastFailureMs = Date.now(); // not before the counts began: each ends one window after its start
    },
  };
}
