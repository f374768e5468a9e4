// Shortening, re-normalising and the two encodings of a vector.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cosine, encodeVector, fromBase64, shorten, toBase64 } from './vectors.ts';

const test = suite('embedding vectors');

test('shorten keeps the first values and scales them to unit length', () => {
  const vector = Float32Array.from([3, 4, 12, 0]);
  assert.equal(Array.from(shorten(vector, 2)), [0.6000000238418579, 0.800000011920929]);
  const full = shorten(vector);
  assert.is(full.length, 4);
  assert.ok(Math.abs(Math.hypot(...full) - 1) < 1e-6);
  assert.equal(Array.from(vector), [3, 4, 12, 0], 'the input is not modified');
  assert.equal(Array.from(shorten(Float32Array.from([0, 0, 5]), 2)), [0, 0], 'zeros stay zeros');
  assert.is(shorten(vector, 10).length, 4);
});

test('base64 is little-endian float32, and decodes to exactly the float numbers', () => {
  assert.is(toBase64(Float32Array.from([1, 0, 0])), 'AACAPwAAAAAAAAAA'); // the contract's example
  const vector = Float32Array.from([0.1, -0.25, 1e-8, 0.333333]);
  const encoded = encodeVector(vector, 'base64') as string;
  assert.equal(Array.from(fromBase64(encoded)), encodeVector(vector, 'float'));
  assert.throws(() => fromBase64(Buffer.from([1, 2, 3]).toString('base64')), /whole number of float32/);
});

test('cosine', () => {
  assert.is(cosine([1, 0], [0, 1]), 0);
  assert.ok(Math.abs(cosine([1, 2], [2, 4]) - 1) < 1e-12);
  assert.is(cosine([0, 0], [1, 1]), 0);
});

test.run();
