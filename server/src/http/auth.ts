// Authentication by the operation's security scheme: Bearer keys on v3, the three signed headers on v2/v1 (HMAC over
// `public_key\ntimestamp`, ±300 s, or the `X-Signature-Version: 2` canonical string with method, path, body hash and
// an optional nonce accepted once), and the operator token on /admin. Blocked accounts are refused here, except where
// an operation says otherwise. Refused Bearer keys, signatures and admin tokens are counted per client address, which
// is refused with 429 for a while once it has failed too often.
import { createHash, hash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { AccountRow } from '../db/account-row.ts';
import { ApiError, errors } from './api-error.ts';
import { connectionSecretHash } from './connection-secret-hash.ts';
import type { FailedAuthLimit } from './rate-limit.ts';
import type { SignatureNonces } from './signature-nonces.ts';

export type SecurityScheme = 'bearer' | 'signed' | 'admin' | 'none';

export const SIGNATURE_WINDOW_SECONDS = 300;

export function schemeOf(security: Record<string, string[]>[] | undefined): SecurityScheme {
  const names = (security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (names.includes('BearerAuth')) return 'bearer';
  if (names.includes('Signature')) return 'signed';
  if (names.includes('AdminToken')) return 'admin';
  return 'none';
}

/**
 * What authentication asks of the account and key stores: the app passes in its stores, which have these methods, so
 * this layer names no feature.
 */
export interface AuthDeps {
  accounts: { find(id: string): Promise<AccountRow | undefined> };
  keys: {
    /** `secretHash` is the secret's hash when the caller already has it (see connection-secret-hash.ts). */
    authenticateApiKey(
      secret: string,
      secretHash?: string,
    ): Promise<{ key: { id: string }; account: AccountRow } | undefined>;
    /** Whether a key pair with this public key exists (checked before a signed upload is read). */
    knowsPublicKey(publicKey: string): Promise<boolean>;
    /** The account id of a correctly signed request, or undefined. */
    verifySignature(publicKey: string, canonical: string, signature: string): Promise<string | undefined>;
  };
  adminToken: string | undefined;
  now: () => number;
  nonces: SignatureNonces;
  /** Undefined when refused credentials are not limited. */
  failedAuth: FailedAuthLimit | undefined;
}

/** `X-Signature-Nonce`: a client-chosen value, unique per key pair within the window (a UUID fits). */
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;

const EMPTY_BODY_SHA256 = createHash('sha256').digest('hex');

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

/**
 * Whether the request's signature covers its body (`X-Signature-Version: 2`): then a multipart body has to be read
 * (and hashed as it streams to disk) before the request can be authenticated.
 */
export function signatureCoversBody(ctx: Context, scheme: SecurityScheme): boolean {
  return scheme === 'signed' && ctx.get('X-Signature-Version') === '2';
}

/** The string a signature covers; `bodySha256` is the lowercase hex SHA-256 of the body exactly as received. */
export function canonicalString(ctx: Context, publicKey: string, timestamp: string, bodySha256: string): string {
  if (ctx.get('X-Signature-Version') === '2') {
    const nonce = ctx.get('X-Signature-Nonce');
    const signed = `${publicKey}\n${timestamp}\n${ctx.method}\n${ctx.url}\n${bodySha256}`;
    return nonce ? `${signed}\n${nonce}` : signed;
  }
  return `${publicKey}\n${timestamp}`;
}

/**
 * The checks of a signed request that need no body: the three headers, the version, the timestamp's window and the
 * nonce's form. Returns the public key and timestamp.
 */
function signedHeaders(ctx: Context, deps: AuthDeps): { publicKey: string; timestamp: string; signature: string } {
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
  const nonce = ctx.get('X-Signature-Nonce');
  // The version 1 string is fixed by the interface document and cannot cover a nonce, so one sent with it is refused
  // rather than silently not protecting anything.
  if (nonce && version !== '2') {
    throw errors.invalidApiKey(
      'X-Signature-Nonce needs X-Signature-Version: 2 (the version 1 signature cannot cover it).',
    );
  }
  if (nonce && !NONCE.test(nonce)) {
    throw errors.invalidApiKey('X-Signature-Nonce must be 16 to 128 letters, digits, "-" or "_".');
  }
  return { publicKey, timestamp, signature };
}

async function signed(ctx: Context, deps: AuthDeps, bodySha256: () => string): Promise<AccountRow> {
  const { publicKey, timestamp, signature } = signedHeaders(ctx, deps);
  const version = ctx.get('X-Signature-Version');
  const nonce = ctx.get('X-Signature-Nonce');
  const accountId = await deps.keys.verifySignature(
    publicKey,
    canonicalString(ctx, publicKey, timestamp, version === '2' ? bodySha256() : ''),
    signature.toLowerCase(),
  );
  const account = accountId ? await deps.accounts.find(accountId) : undefined;
  if (!account) throw errors.invalidApiKey('Invalid signature.');
  if (nonce && !(await deps.nonces.use(publicKey, nonce, deps.now(), SIGNATURE_WINDOW_SECONDS * 1000))) {
    throw errors.invalidApiKey('This X-Signature-Nonce has already been used.');
  }
  if (account.blocked) throw errors.userBlocked();
  return account;
}

function admin(ctx: Context, deps: AuthDeps): void {
  // With no token configured the admin surface does not exist; the 404 names the setting that turns it on.
  if (!deps.adminToken) throw errors.adminSurfaceOff();
  // Digests of equal length, so neither the comparison nor a length check reveals anything about the token.
  const sent = createHash('sha256').update(ctx.get('X-Admin-Token')).digest();
  const expected = createHash('sha256').update(deps.adminToken).digest();
  if (!timingSafeEqual(sent, expected)) {
    throw errors.invalidApiKey('Missing or invalid admin token.');
  }
}

const noAccount = Promise.resolve(undefined);

/**
 * What can be checked of a request whose signature covers a multipart body before that body is read (it may be
 * hundreds of megabytes, streamed to disk): the address is not locked out, the headers are present and in the window,
 * and the public key exists. A request that fails here is refused without its body being read, and counted as a
 * refused credential like a wrong signature.
 */
export async function preauthenticateSigned(ctx: Context, deps: AuthDeps): Promise<void> {
  const check = async () => {
    const { publicKey } = signedHeaders(ctx, deps);
    if (!(await deps.keys.knowsPublicKey(publicKey))) throw errors.invalidApiKey('Invalid signature.');
    return undefined;
  };
  const credential = deps.failedAuth && presentedCredential(ctx, 'signed');
  await (credential ? limited(ctx, deps.failedAuth!, credential, check) : check());
}

/**
 * The credential a request presents, as it is counted when refused (never a secret itself), or undefined when it
 * presents none. Made only when the limit asks for it: most requests need no digest of their key.
 */
function presentedCredential(ctx: Context, scheme: 'bearer' | 'signed'): (() => string) | undefined {
  if (scheme === 'signed') {
    const publicKey = ctx.get('X-Public-Key');
    return publicKey ? () => `pk:${publicKey.slice(0, 128)}` : undefined;
  }
  const authorization = ctx.get('Authorization');
  return authorization ? () => `bearer:${hash('sha256', authorization, 'hex').slice(0, 32)}` : undefined;
}

/**
 * Runs a scheme's check under the failed-authentication limit. A request without credentials guesses nothing and is
 * neither refused by the limit nor counted.
 */
async function limited(
  ctx: Context,
  limit: FailedAuthLimit,
  credential: () => string,
  check: () => Promise<AccountRow | undefined>,
): Promise<AccountRow | undefined> {
  // The client's address as the trusted proxies tell it (client-address.ts), else the TCP peer.
  const address = (ctx.state.clientAddress as string | undefined) ?? ctx.req.socket.remoteAddress ?? 'unknown';
  await limit.check(address, credential);
  try {
    return await check();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) await limit.fail(address, credential());
    throw error;
  }
}

// Not an async function itself: it hands on the scheme's promise rather than wrapping it in one more (this runs on
// every request). A refused admin token throws here, which the awaiting dispatcher sees as the same rejection.
/**
 * `rawBody` is a JSON body read whole; `uploadSha256` the SHA-256 of a multipart body already read (what a version 2
 * signature covers, see signatureCoversBody).
 */
export function authenticate(
  ctx: Context,
  deps: AuthDeps,
  scheme: SecurityScheme,
  operationId: string,
  rawBody: Buffer | undefined,
  uploadSha256?: string,
): Promise<AccountRow | undefined> {
  if (scheme === 'admin') {
    // A wrong admin token is a guess like a wrong key: counted and limited the same way.
    const sent = deps.failedAuth && deps.adminToken ? ctx.get('X-Admin-Token') : '';
    if (!sent) {
      admin(ctx, deps);
      return noAccount;
    }
    const credential = () => `admin:${hash('sha256', sent, 'hex').slice(0, 32)}`;
    return limited(ctx, deps.failedAuth!, credential, async () => {
      admin(ctx, deps);
      return undefined;
    });
  }
  if (scheme === 'none') return noAccount;
  const check =
    scheme === 'bearer'
      ? () => bearer(ctx, deps, operationId)
      : () =>
          signed(ctx, deps, () =>
            rawBody ? createHash('sha256').update(rawBody).digest('hex') : (uploadSha256 ?? EMPTY_BODY_SHA256),
          );
  const credential = deps.failedAuth && presentedCredential(ctx, scheme);
  return credential ? limited(ctx, deps.failedAuth!, credential, check) : check();
}
