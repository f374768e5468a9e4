// knex's better-sqlite3 dialect prepares every query anew (parsing and planning the SQL each time, a third of a
// simple read). knex builds the same SQL text for the same query shape with `?` placeholders, so remembering the
// prepared statement per SQL text is safe: better-sqlite3 runs statements synchronously (no two uses overlap) and
// SQLite re-plans a statement by itself when the schema changes. Only data statements are remembered.
import { LRUCache } from 'lru-cache';

interface Preparer {
  prepare(sql: string): unknown;
}

interface Statement {
  safeIntegers(on: boolean): Statement;
}

const MAX_STATEMENTS = 500;
const dataStatement = /^\s*(select|insert|update|delete|with)\b/i;

export function rememberPreparedStatements<T extends Preparer>(connection: T): T {
  const prepare = connection.prepare.bind(connection);
  const statements = new LRUCache<string, Statement>({ max: MAX_STATEMENTS });
  connection.prepare = (sql: string) => {
    if (!dataStatement.test(sql)) return prepare(sql);
    let statement = statements.get(sql);
    if (!statement) {
      statement = prepare(sql) as Statement;
      statements.set(sql, statement);
    }
    // knex sets safeIntegers after prepare only when a query asks for it: start every use from the default.
    return statement.safeIntegers(false);
  };
  return connection;
}
