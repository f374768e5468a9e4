// The one place a URL given by a client (a media link, a webhook endpoint) is parsed. The contract's pattern admits
// only http/https links with a plausible host, but the WHATWG parser the server fetches with is stricter in ways a
// pattern cannot follow exactly (an IPv4 octet above 255, a percent-encoded `/` or NUL in the host, a bad IDNA label):
// such a link is the client's mistake, so it is 400 `invalid_parameter` on the field, never a TypeError that
// reaches the error handler as a 500.
import { errors } from './api-error.ts';

/** Parses `value` as an absolute http/https URL with a host, or throws 400 `invalid_parameter` with `param`. */
export function parseClientUrl(value: string, param: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw errors.invalidParameter(param, `${param} is not a valid URL (its host or port cannot be parsed).`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw errors.invalidParameter(param, `${param} must be an http or https URL.`);
  }
  if (!parsed.hostname) throw errors.invalidParameter(param, `${param} must be an http or https URL with a host.`);
  return parsed;
}
