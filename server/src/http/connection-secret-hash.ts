// The hash of the Bearer secret a connection last sent. A keep-alive client sends the same key with every request on
// its connection, and hashing it anew each time was the largest cost of a request the credential cache answers
// (SHA-256 of the secret, ≈ 5–10 µs of a status read's CPU in context). The secret is remembered only as long as its
// connection (a WeakMap on the socket); the credential cache is still keyed by the hash (keys/credential-cache.ts),
// so revocations and account changes are seen exactly as before; another key on the same connection is hashed again.
import type { Socket } from 'node:net';
import { hashApiKeySecret } from '../secrets/api-key-hash.ts';

const lastOnConnection = new WeakMap<Socket, { secret: string; hash: string }>();

export function connectionSecretHash(socket: Socket, secret: string): string {
  const last = lastOnConnection.get(socket);
  // The client compares against what it sent itself on this connection: no other client's secret is involved.
  if (last?.secret === secret) return last.hash;
  const hash = hashApiKeySecret(secret);
  lastOnConnection.set(socket, { secret, hash });
  return hash;
}
