// `--rate-limit auto`: at most (limit − 1) requests per account in any 1.1 s, where the limit is the server's
// RateLimit-Limit header once seen, else the document's `x-rate-limit`; a 429 is waited out for its Retry-After.
// `--rate-limit off` sends as fast as the suite can (for servers without a limit, or tests of the limit itself).
const WINDOW_MS = 1100;

export class RateLimiter {
  private readonly sent = new Map<string, number[]>();
  private readonly limits = new Map<string, number>();

  constructor(
    private readonly mode: 'auto' | 'off',
    private readonly documentedLimit: number,
  ) {}

  get enabled(): boolean {
    return this.mode === 'auto';
  }

  /** Waits until one more request of `account` stays under the limit, then counts it. */
  async acquire(account: string): Promise<void> {
    if (this.mode === 'off') return;
    const budget = Math.max(1, (this.limits.get(account) ?? this.documentedLimit) - 1);
    for (;;) {
      const now = Date.now();
      const recent = (this.sent.get(account) ?? []).filter((t) => now - t < WINDOW_MS);
      if (recent.length < budget) {
        recent.push(now);
        this.sent.set(account, recent);
        return;
      }
      await sleep(WINDOW_MS - (now - recent[0]!) + 5);
    }
  }

  /** Learns the server's limit for the account from a response's RateLimit-Limit. */
  observe(account: string, headers: Record<string, string>): void {
    const limit = Number(headers['ratelimit-limit']);
    if (Number.isInteger(limit) && limit > 0) this.limits.set(account, limit);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
