// What the API does to an engine's vector before it leaves: shorten it to `dimensions` (the first values), scale it to
// unit length, and write it as numbers or as base64 of little-endian float32 values (OpenAI's two encodings).
//
// The numbers of `float` are exactly the float32 values that `base64` carries (each float32 widened to a double), so
// both encodings of one request decode to the same vector bit for bit.

/** The first `dimensions` values, divided by their length (all zeros stay zeros: there is no direction to keep). */
export function shorten(vector: Float32Array, dimensions: number = vector.length): Float32Array {
  const out = vector.slice(0, Math.min(dimensions, vector.length));
  let sum = 0;
  for (const value of out) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = out[i]! / norm;
  return out;
}

/** Little-endian float32 bytes, base64-encoded. */
export function toBase64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}

/** The inverse of toBase64 (clients do this; tests use it to check the answer). */
export function fromBase64(encoded: string): Float32Array {
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length % 4 !== 0) throw new RangeError('a base64 vector must be a whole number of float32 values');
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

export function encodeVector(vector: Float32Array, format: 'float' | 'base64'): number[] | string {
  return format === 'base64' ? toBase64(vector) : Array.from(vector);
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
