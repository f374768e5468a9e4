// Times read back from either database are sent in one form: ISO 8601 in UTC with milliseconds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toIso } from './rows.ts';

test('a time already in the sent form is sent as stored', () => {
  assert.equal(toIso('2026-12-07T15:44:29.123Z'), '2026-12-07T15:44:29.123Z');
});

test('other forms are normalised to UTC with milliseconds', () => {
  assert.equal(toIso('2026-12-07 15:44:29'), '2026-12-07T15:44:29.000Z'); // SQLite's CURRENT_TIMESTAMP
  assert.equal(toIso('2026-12-07T15:44:29Z'), '2026-12-07T15:44:29.000Z');
  assert.equal(toIso('2026-12-07T17:44:29.5+02:00'), '2026-12-07T15:44:29.500Z');
  assert.equal(toIso(new Date(Date.UTC(2026, 11, 7, 15, 44, 29, 7))), '2026-12-07T15:44:29.007Z');
});

test('a value that is no time is refused, as before', () => {
  assert.throws(() => toIso('not a time'), RangeError);
});
