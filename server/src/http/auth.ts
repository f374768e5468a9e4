// Authentication by the operation's security scheme: Bearer keys on v3, the three signed headers on v2/v1 (HMAC over
// `public_key\ntimestamp`, ±300 s, or the `X-Signature-Version: 2` canonical string with method, path and body hash),
// and the operator token on /admin. Blocked accounts are refused here, except where an operation says otherwise.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { AccountRow, AccountStore } from '../accounts/store.ts';
import type { KeyService } from '../keys/service.ts';
import { ApiError, errors } from './api-error.ts';
import { connectionSecretHash } from './connection-secret-hash.ts';

export type SecurityScheme = 'bearer' | 'signed' | 'admin' | 'none';

export const SIGNATURE_WINDOW_SECONDS = 300;

export function schemeOf(security: Record<string, string[]>[] | undefined): SecurityScheme {
  const names = (security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (names.includes('BearerAuth')) return 'bearer';
  if (names.includes('Signature')) return 'signed';
  if (names.includes('AdminToken')) return 'admin';
  return 'none';
}

export interface AuthDeps {
  accounts: AccountStore;
  keys: KeyService;
  adminToken: string | undefined;
  now: () => number;
}

/** Operations where a blocked account gets 409 instead of 403 (the seed: updating a webhook). */
const blockedIsConflict = new Set(['updateWebhook']);

function refuseBlocked(account: AccountRow, operationId: string): void {
  if (!account.blocked) return;
  if (blockedIsConflict.has(operationId)) {
    throw new ApiError(409, 'user_blocked', 'Webhooks of a blocked account cannot be changed.');
  }
  throw errors.userBlocked();
}

async function bearer(ctx: Context, deps: AuthDeps, operationId: string): Promise<AccountRow> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'));
  const secret = match?.[1];
  const found = secret
    ? await deps.keys.authenticateApiKey(secret, connectionSecretHash(ctx.req.socket, secret))
    : undefined;
  if (!found) throw errors.invalidApiKey();
  const { key, account } = found;
  refuseBlocked(account, operationId);
  ctx.state.apiKeyId = key.id;
  return account;
}

export function canonicalString(
  ctx: Context,
  publicKey: string,
  timestamp: string,
  rawBody: Buffer | undefined,
): string {
  if (ctx.get('X-Signature-Version') === '2') {
    const bodyHash = createHash('sha256')
      .update(rawBody ?? Buffer.alloc(0))
      .digest('hex');
    return `${publicKey}\n${timestamp}\n${ctx.method}\n${ctx.url}\n${bodyHash}`;
  }
  return `${publicKey}\n${timestamp}`;
}

async function signed(ctx: Context, deps: AuthDeps, rawBody: Buffer | undefined): Promise<AccountRow> {
  const publicKey = ctx.get('X-Public-Key');
  const timestamp = ctx.get('X-Timestamp');
  const signature = ctx.get('X-Signature');
  if (!publicKey || !timestamp || !signature) {
    throw errors.invalidApiKey('X-Public-Key, X-Timestamp and X-Signature are required.');
  }
  const version = ctx.get('X-Signature-Version');
  if (version && version !== '1' && version !== '2') throw errors.invalidApiKey('X-Signature-Version must be 1 or 2.');
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(deps.now() / 1000 - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS) {
    throw errors.invalidApiKey(`X-Timestamp must be the current Unix time (±${SIGNATURE_WINDOW_SECONDS} s).`);
  }
  const accountId = await deps.keys.verifySignature(
    publicKey,
    canonicalString(ctx, publicKey, timestamp, rawBody),
    signature.toLowerCase(),
  );
  const account = accountId ? await deps.accounts.find(accountId) : undefined;
  if (!account) throw errors.invalidApiKey('Invalid signature.');
  if (account.blocked) throw errors.userBlocked();
  return account;
}

function admin(ctx: Context, deps: AuthDeps): void {
  // With no token configured the admin surface does not exist.
  if (!deps.adminToken) throw errors.notFound(null, 'route');
  // Digests of equal length, so neither the comparison nor a length check reveals anything about the token.
  const sent = createHash('sha256').update(ctx.get('X-Admin-Token')).digest();
  const expected = createHash('sha256').update(deps.adminToken).digest();
  if (!timingSafeEqual(sent, expected)) {
    throw errors.invalidApiKey('Missing or invalid admin token.');
  }
}

const noAccount = Promise.resolve(undefined);

// Not an async function itself: it hands on the scheme's promise rather than wrapping it in one more (this runs on
// every request). A refused admin token throws here, which the awaiting dispatcher sees as the same rejection.
export function authenticate(
  ctx: Context,
  deps: AuthDeps,
  scheme: SecurityScheme,
  operationId: string,
  rawBody: Buffer | undefined,
): Promise<AccountRow | undefined> {
  switch (scheme) {
    case 'bearer':
      return bearer(ctx, deps, operationId);
    case 'signed':
      return signed(ctx, deps, rawBody);
    case 'admin':
      admin(ctx, deps);
      return noAccount;
    case 'none':
      return noAccount;
  }
}
