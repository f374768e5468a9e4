// The WWW-Authenticate challenge of a 401 (HTTP requires one on every 401): the scheme each surface authenticates
// with, exactly the value its contract declares (Bearer keys on /v3, the signed headers on /v2 and /v1, the operator
// token on /admin). The signed and operator schemes have no registered name, so they carry the server's own.
export const challenges = {
  bearer: 'Bearer realm="scribe"',
  signed: 'Scribe-Signature realm="scribe", headers="X-Public-Key X-Timestamp X-Signature"',
  admin: 'Scribe-Admin-Token realm="scribe-admin"',
} as const;

/** The challenge for a refused request to this path. */
export function challengeFor(path: string): string {
  if (path === '/admin' || path.startsWith('/admin/')) return challenges.admin;
  if (path.startsWith('/v2/') || path.startsWith('/v1/')) return challenges.signed;
  return challenges.bearer;
}
