// The length a task is limited and billed by: the decoded one, with the container's stated one kept only where the
// two agree within the tolerance (an honest MP3's few milliseconds), never where the decode is shorter.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../http/api-error.ts';
import {
  billableSeconds,
  checkDecodedLength,
  decodeBoundOf,
  DECLARED_LENGTH_TOLERANCE_SECONDS,
} from './decoded-length.ts';

test('an honest file a few ms longer decoded than stated keeps its stated length (60.00 s stays 1 minute)', () => {
  assert.is(billableSeconds(60, 60.026), 60);
  assert.is(billableSeconds(300, 300 + DECLARED_LENGTH_TOLERANCE_SECONDS), 300);
});

test('decoded audio longer than stated beyond the tolerance counts as decoded; shorter counts as decoded', () => {
  assert.is(billableSeconds(7.2, 125), 125);
  assert.is(billableSeconds(60, 60.6), 60.6);
  assert.is(billableSeconds(120, 30), 30);
  assert.is(billableSeconds(null, 42), 42);
  assert.is(billableSeconds(0, 0), 0);
});

test('the decode runs past the limit by more than the tolerance, so a too-long file is seen to be', () => {
  assert.ok(decodeBoundOf(300) > 300 + DECLARED_LENGTH_TOLERANCE_SECONDS);
  assert.is(checkDecodedLength(300, 299.99, 300.03), 299.99);
  try {
    checkDecodedLength(300, 7.2, decodeBoundOf(300));
    assert.unreachable('refused');
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, 'duration_exceeded');
    assert.is((error as ApiError).param, 'file');
  }
});

test.run();
