// Times read back from either database are sent in one form: ISO 8601 in UTC with milliseconds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toIso } from './rows.ts';

test('a time already in the sent form is sent as stored', () => {
  assert.is(toIso('2026-12-07T15:44:29.123Z'), '2026-12-07T15:44:29.123Z');
});

test('other forms are normalised to UTC with milliseconds', () => {
  assert.is(toIso('2026-12-07 15:44:29'), '2026-12-07T15:44:29.000Z'); // SQLite's CURRENT_TIMESTAMP
  assert.is(toIso('2026-12-07T15:44:29Z'), '2026-12-07T15:44:29.000Z');
  assert.is(toIso('2026-12-07T17:44:29.5+02:00'), '2026-12-07T15:44:29.500Z');
  assert.is(toIso(new Date(Date.UTC(2026, 11, 7, 15, 44, 29, 7))), '2026-12-07T15:44:29.007Z');
});

test('a value that is no time is refused, as before', () => {
  assert.throws(
    () => toIso('not a time'),
    (error: unknown) => error instanceof RangeError,
  );
});

test.run();
