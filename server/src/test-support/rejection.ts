// The error a promise rejects with, checked to be a `type` — for tests that expect a call to fail (the test fails
// when the promise fulfils instead).
import * as assert from 'uvu/assert';

export async function rejectionOf<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, type);
    return error as E;
  }
  throw new Error('the call succeeded, but it was expected to fail');
}
