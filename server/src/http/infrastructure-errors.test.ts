// Which errors are the infrastructure's: the codes and messages of the drivers (pg, knex, better-sqlite3) and of the
// filesystem for a database that does not answer and a full disk, also when wrapped as a cause; an ApiError or an
// ordinary bug is not, so it still reaches the customer as itself or as a 500.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from './api-error.ts';
import { infrastructureApiError, infrastructureFaultOf } from './infrastructure-errors.ts';

const error = (message: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(message), fields);

test('a database that does not answer, in each driver’s words', () => {
  const cases = [
    error('Knex: Timeout acquiring a connection. The pool is probably full.', { name: 'KnexTimeoutError' }),
    error('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }),
    error('timeout expired'),
    error('Query read timeout'),
    error('Connection terminated unexpectedly'),
    error('terminating connection due to administrator command', { code: '57P01' }),
    error('canceling statement due to statement timeout', { code: '57014' }),
    error('the database system is starting up', { code: '57P03' }),
    error('connection failure', { code: '08006' }),
    error('database is locked', { code: 'SQLITE_BUSY' }),
    error('wrapped', { cause: error('read ECONNRESET', { code: 'ECONNRESET' }) }),
  ];
  for (const each of cases) assert.is(infrastructureFaultOf(each), 'database', each.message);
});

test('a full disk, from the filesystem, SQLite and PostgreSQL', () => {
  const cases = [
    error('ENOSPC: no space left on device, write', { code: 'ENOSPC' }),
    error('database or disk is full', { code: 'SQLITE_FULL' }),
    error('could not extend file', { code: '53100' }),
  ];
  for (const each of cases) assert.is(infrastructureFaultOf(each), 'storage', each.message);
  const answer = infrastructureApiError(cases[0]);
  assert.is(answer?.status, 503);
  assert.is(answer?.code, 'insufficient_storage');
  assert.is(answer?.headers['Retry-After'], '60');
});

test('the request’s errors and bugs are not the infrastructure’s', () => {
  assert.is(infrastructureFaultOf(new ApiError(400, 'invalid_parameter', 'no')), undefined);
  assert.is(infrastructureFaultOf(new TypeError("Cannot read properties of undefined (reading 'id')")), undefined);
  assert.is(infrastructureFaultOf(error('duplicate key value', { code: '23505' })), undefined);
  assert.is(infrastructureFaultOf(undefined), undefined);
  // Another dependency's failure, classified where it was thrown: its socket error is not the database's.
  const refused = error('fetch failed', { cause: error('connect ECONNREFUSED 127.0.0.1:9', { code: 'ECONNREFUSED' }) });
  assert.is(
    infrastructureFaultOf(error('upstream unreachable', { code: 'upstream_unreachable', cause: refused })),
    undefined,
  );
});

test.run();
