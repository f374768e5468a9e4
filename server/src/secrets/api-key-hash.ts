// What is stored of a v3 Bearer secret, and what the credential cache is keyed by: its SHA-256 in hex. The key store
// (keys/) and the per-connection memo of the last hash (http/) must compute the same value, so it lives below both.
import { hash } from 'node:crypto';

// One-shot hashing (crypto.hash, Node ≥ 20.12): no Hash object per call on the authentication path.
export const hashApiKeySecret = (secret: string): string => hash('sha256', secret, 'hex');
