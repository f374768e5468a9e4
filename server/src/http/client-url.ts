// The one place a URL given by a client (a media link, a webhook endpoint) is parsed. The contract's pattern admits
// only http/https links with a plausible host, but the WHATWG parser the server fetches with is stricter in ways a
// pattern cannot follow exactly (an IPv4 octet above 255, a percent-encoded `/` or NUL in the host, a bad IDNA label):
// such a link is the client's mistake, so it is 400 `invalid_parameter` on the field, never a TypeError that
// reaches the error handler as a 500.
import { domainToUnicode } from 'node:url';
import { errors } from './api-error.ts';

/**
 * Whether a host has an `xn--` label that is not valid punycode. Node 20 and 22 refuse such a URL while parsing it;
 * Node 24's parser keeps the label as it is, so it is found here and refused alike on every Node line: an invalid
 * label decodes to nothing (20, 22) or to itself (24), a valid one to its Unicode form.
 */
const hasBadPunycode = (hostname: string): boolean =>
  hostname.split('.').some((label) => label.startsWith('xn--') && /^(xn--|$)/.test(domainToUnicode(label)));

/** Parses `value` as an absolute http/https URL with a host, or throws 400 `invalid_parameter` with `param`. */
export function parseClientUrl(value: string, param: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw errors.invalidParameter(param, `${param} is not a valid URL (its host or port cannot be parsed).`);
  }
  if (hasBadPunycode(parsed.hostname)) {
    throw errors.invalidParameter(param, `${param} is not a valid URL (its host or port cannot be parsed).`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw errors.invalidParameter(param, `${param} must be an http or https URL.`);
  }
  if (!parsed.hostname) throw errors.invalidParameter(param, `${param} must be an http or https URL with a host.`);
  return parsed;
}

/**
 * A client's URL as it may be written to a log: scheme, host, port and path only. The user name and password, the
 * query (a signed link's signature or token) and the fragment are left out, so a log never holds a credential that
 * came inside a URL.
 */
export function loggableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const hidden = parsed.username || parsed.password ? '***@' : '';
    const query = parsed.search ? '?…' : '';
    return `${parsed.protocol}//${hidden}${parsed.host}${parsed.pathname}${query}`;
  } catch {
    return '(not a URL)';
  }
}
