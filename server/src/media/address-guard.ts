// Decides whether the server may fetch a client-supplied URL (server-side request forgery protection): only http(s),
// and only when every address the host resolves to is public unicast (no loopback, private, link-local such as the
// 169.254.169.254 metadata service, unique-local, CGNAT, multicast, reserved, or IPv4-mapped/NAT64 forms of those),
// unless the operator allowed the host or address in SCRIBE_URL_ALLOW_HOSTS. The caller connects to the address
// returned here, so a second DNS answer cannot swap it. A refusal's message goes back to the client (a 400, a failed
// task, a webhook delivery record), so it never says what a name resolved to or why DNS failed: otherwise the guard
// would answer questions about the operator's internal DNS. That stays in `detail`, for the server's log.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export type UrlRefusal = 'invalid_url' | 'scheme' | 'address' | 'dns';

export class UrlRefusedError extends Error {
  override readonly name = 'UrlRefusedError';
  constructor(
    /** `scheme`: not http(s); `address`: a non-public address; `dns`: the host did not resolve. */
    readonly reason: UrlRefusal,
    message: string,
    readonly url: string,
    /** For the server's log only: the address and its range, or the DNS error code. Never shown to the client. */
    readonly detail?: string,
  ) {
    super(message);
  }
}

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

export interface AddressGuard {
  /** Resolves the URL's host and returns the address to connect to, or throws UrlRefusedError. */
  check(url: URL): Promise<CheckedAddress>;
}

/** Splits SCRIBE_URL_ALLOW_HOSTS (commas and/or spaces) into entries for createAddressGuard. */
export function allowListFromEnv(env: Record<string, string | undefined> = process.env): string[] {
  return (env.SCRIBE_URL_ALLOW_HOSTS ?? '').split(/[\s,]+/).filter(Boolean);
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

const LABELS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique-local',
};

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d), IPv4-translated or NAT64 (64:ff9b::/96) address. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range: string = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || address.match(NAT64_WELL_KNOWN)) {
    const bytes = address.toByteArray().slice(12);
    return new ipaddr.IPv4(bytes);
  }
  return null;
}

/**
 * The special-purpose range an address belongs to (ipaddr.js's name, e.g. `loopback`, `private`, `linkLocal`), or
 * null for a public unicast address. IPv6 must also be global unicast (2000::/3) unless it embeds an IPv4 address,
 * which is then judged itself.
 */
export function nonPublicRange(address: Address): string | null {
  if (address.kind() === 'ipv4') {
    const range: string = (address as ipaddr.IPv4).range();
    return range === 'unicast' ? null : range;
  }
  const v6 = address as ipaddr.IPv6;
  const v4 = embeddedIPv4(v6);
  if (v4) return nonPublicRange(v4);
  const range: string = v6.range();
  if (range !== 'unicast') return range;
  return v6.match(GLOBAL_UNICAST_V6) ? null : 'reserved';
}

function describeRange(range: string): string {
  return LABELS[range] ?? `special-purpose (${range})`;
}

function normalizeHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

function isIpLiteral(entry: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(entry) || ipaddr.IPv6.isValid(entry);
}

/**
 * `allow` holds host names (exact match, case-insensitive), IP addresses (that address) and CIDR ranges (any
 * address inside). A malformed CIDR entry throws at creation, so a typo in the configuration is found at start.
 */
export function createAddressGuard(allow: string[]): AddressGuard {
  const hosts = new Set<string>();
  const ranges: [Address, number][] = [];
  for (const raw of allow) {
    const entry = normalizeHost(raw.trim());
    if (!entry) continue;
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`Invalid CIDR "${raw}" in the URL allow list`);
      const [base, bits] = ipaddr.parseCIDR(entry);
      // ::ffff:10.0.0.0/104 is written as 10.0.0.0/8, since resolved addresses are matched in their IPv4 form.
      if (base.kind() === 'ipv6' && (base as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
        ranges.push([(base as ipaddr.IPv6).toIPv4Address(), bits - 96]);
      } else {
        ranges.push([base, bits]);
      }
    } else if (isIpLiteral(entry)) {
      const address = ipaddr.process(entry);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      hosts.add(entry);
    }
  }

  const addressAllowed = (address: Address) =>
    ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));

  return {
    async check(url: URL): Promise<CheckedAddress> {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        const scheme = url.protocol.replace(/:$/, '');
        throw new UrlRefusedError('scheme', `Only http and https URLs can be fetched, not ${scheme}.`, url.href);
      }
      const host = normalizeHost(url.hostname);
      if (!host) throw new UrlRefusedError('invalid_url', 'The URL has no host.', url.href);

      let resolved: { address: string; family: number }[];
      try {
        resolved = await lookup(host, { all: true, verbatim: true });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        throw new UrlRefusedError('dns', `The host ${host} could not be resolved.`, url.href, code);
      }
      const first = resolved[0];
      if (!first) throw new UrlRefusedError('dns', `The host ${host} has no addresses.`, url.href);

      if (!hosts.has(host)) {
        for (const { address } of resolved) {
          // process() turns ::ffff:a.b.c.d into a.b.c.d, so an allowed IPv4 entry covers its mapped form too.
          const parsed = ipaddr.process(address.replace(/%.*$/, ''));
          if (addressAllowed(parsed)) continue;
          const range = nonPublicRange(parsed);
          if (range) {
            throw new UrlRefusedError(
              'address',
              `The host ${host} is not allowed: the server does not fetch from private, local or reserved networks.`,
              url.href,
              `${address} (${describeRange(range)})`,
            );
          }
        }
      }
      return { address: first.address, family: first.family === 6 ? 6 : 4 };
    },
  };
}
