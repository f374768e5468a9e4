// Cursor pagination for every list endpoint: newest first by (created_at, id); the cursor is opaque base64url JSON.
import type { Knex } from 'knex';
import { errors } from './api-error.ts';

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

interface Cursor {
  t: string;
  id: string;
}

function decodeCursor(after: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as Cursor;
    // Both parts reach the database as typed values (uuid, timestamp on PostgreSQL): anything else is the client's
    // mistake, not a 500.
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    if (
      typeof cursor.t === 'string' &&
      typeof cursor.id === 'string' &&
      uuid.test(cursor.id) &&
      !Number.isNaN(Date.parse(cursor.t))
    )
      return cursor;
  } catch {
    // fall through to the error below
  }
  throw errors.invalidParameter('after', 'after is not a cursor returned by this endpoint.');
}

export async function paginate<Row extends { id: string; created_at: unknown }, T>(
  query: Knex.QueryBuilder,
  options: { limit?: number; after?: string },
  toTimestamp: (value: unknown) => string,
  map: (row: Row) => T,
): Promise<Page<T>> {
  const limit = options.limit ?? 20;
  if (options.after) {
    const cursor = decodeCursor(options.after);
    void query.where((q) =>
      q
        .where('created_at', '<', cursor.t)
        .orWhere((same) => same.where('created_at', '=', cursor.t).andWhere('id', '<', cursor.id)),
    );
  }
  const rows = (await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit + 1)) as Row[];
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit;
  return {
    data: page.map(map),
    has_more: hasMore,
    next_cursor:
      hasMore && last
        ? Buffer.from(JSON.stringify({ t: toTimestamp(last.created_at), id: last.id })).toString('base64url')
        : null,
  };
}
