// Byte helpers on the Web platform (TextEncoder, atob/btoa, Web Crypto), so the helpers run unchanged in browsers and
// in Node ≥ 20 without node:crypto or Buffer.

export type BytesInput = string | ArrayBuffer | Uint8Array;

const encoder = new TextEncoder();

export function bytesOf(input: BytesInput): Uint8Array<ArrayBuffer> {
  if (typeof input === 'string') return encoder.encode(input);
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  const copy = new Uint8Array(input.byteLength);
  copy.set(input);
  return copy;
}

export function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export async function hmacKey(key: Uint8Array<ArrayBuffer>, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

export async function hmacSha256(key: Uint8Array<ArrayBuffer>, data: BytesInput): Promise<ArrayBuffer> {
  return crypto.subtle.sign('HMAC', await hmacKey(key, 'sign'), bytesOf(data));
}

export async function sha256Hex(data: BytesInput): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', bytesOf(data)));
}
