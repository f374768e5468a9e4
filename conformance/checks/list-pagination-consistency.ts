// list_pagination_consistency: a list answer `{ data, has_more, next_cursor }` (the contract's shape of every list
// endpoint) is consistent in itself: `has_more` true exactly when `next_cursor` is a cursor to continue from, and no
// more items than the `limit` asked for (20 when none was given). Written here, not read from the document under
// test: a schema can say each field's type but not how they agree.
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import type { Finding } from '../core/types.ts';

const DEFAULT_LIMIT = 20;

/** The page size the request asked for, when it is one the contract accepts (1–100); else the default. */
function requestedLimit(url: string): number {
  const value = new URL(url).searchParams.get('limit');
  const limit = value === null ? NaN : Number(value);
  return Number.isInteger(limit) && limit >= 1 && limit <= 100 ? limit : DEFAULT_LIMIT;
}

export function list_pagination_consistency({ exchange }: ResponseContext) {
  const { status, body } = exchange.response;
  if (status < 200 || status >= 300 || typeof body !== 'object' || body === null) return;
  const page = body as { data?: unknown; has_more?: unknown; next_cursor?: unknown };
  if (!Array.isArray(page.data) || typeof page.has_more !== 'boolean') return;
  const findings: Finding[] = [];
  const cursor = typeof page.next_cursor === 'string' && page.next_cursor.length > 0;
  if (page.has_more && !cursor)
    findings.push({
      title: 'More items but no cursor',
      message: `has_more true, next_cursor ${JSON.stringify(page.next_cursor)}`,
      severity: 'medium',
    });
  if (!page.has_more && page.next_cursor !== null && page.next_cursor !== undefined)
    findings.push({
      title: 'A cursor past the last page',
      message: `has_more false, next_cursor ${JSON.stringify(page.next_cursor)}`,
      severity: 'low',
    });
  const limit = requestedLimit(exchange.request.url);
  if (page.data.length > limit)
    findings.push({
      title: 'More items than the limit',
      message: `${page.data.length} items for limit ${limit}`,
      severity: 'medium',
    });
  return findings;
}

registerCheck('list_pagination_consistency', 'response', list_pagination_consistency);
