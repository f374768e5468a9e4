// Secrets a server must not start with: values anyone can read in published examples, or too regular to be random.
// A server key that is known opens every sealed v2 secret and forges result links; an admin token that is known or
// short can be guessed. Each check answers why the value is refused, or undefined when it may be used.

/** The shortest admin token accepted: 24 characters (`openssl rand -hex 24` makes 48). */
export const ADMIN_TOKEN_MIN_LENGTH = 24;

/**
 * Fewer distinct values than this in 32 random bytes (or 24+ random characters) is practically impossible: such a key
 * or token was typed by hand (all zeros, "aaaa…", a repeated pair).
 */
const MIN_DISTINCT = 8;

/** 64-hex values that appear in this project's examples and documentation. */
const PUBLISHED_KEYS = new Set(['0'.repeat(64), '6f657f4c4a53e1eac063ef66536d2e1f88fca2b576bc9b8a4be50188deda4afe']);

/** The start of admin tokens that examples everywhere use as a placeholder (shorter ones fail the length check). */
const PLACEHOLDER_TOKEN = /^(change[-_]?me|changeit|replace[-_]?me|generate|your[-_])/i;

export function weakSecretKeyReason(hex: string): string | undefined {
  if (PUBLISHED_KEYS.has(hex.toLowerCase())) return 'is a published example value: generate one (openssl rand -hex 32)';
  const bytes = Buffer.from(hex, 'hex');
  if (new Set(bytes).size < MIN_DISTINCT) {
    return 'is not random (its 32 bytes repeat a few values): generate one (openssl rand -hex 32)';
  }
  return undefined;
}

export function weakAdminTokenReason(token: string): string | undefined {
  if (PLACEHOLDER_TOKEN.test(token)) return 'is a published placeholder: generate one (openssl rand -hex 24)';
  if (token.length < ADMIN_TOKEN_MIN_LENGTH) {
    return `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters, got ${token.length}: generate one (openssl rand -hex 24)`;
  }
  if (new Set(token).size < MIN_DISTINCT) {
    return 'is not random (it repeats a few characters): generate one (openssl rand -hex 24)';
  }
  return undefined;
}
