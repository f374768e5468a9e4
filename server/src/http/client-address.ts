// The client's address, for the failed-authentication limit and the access log. Behind a load balancer or reverse
// proxy every connection comes from the proxy, so counting refusals per TCP peer would lock every client behind it
// out at once. Only a peer the operator trusts (SCRIBE_TRUSTED_PROXIES: addresses and CIDR ranges) may say who the
// client is: then X-Forwarded-For is read from the right, skipping trusted hops, and the first untrusted address is
// the client. From any other peer the header is ignored, so a client cannot pick the address it is counted under.
import type { Context, Next } from 'koa';
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses the trusted proxies (addresses or CIDR ranges); throws on a malformed entry. */
export function parseTrustedProxies(entries: string[]): Range[] {
  return entries.map((entry) => {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry) as Range;
    const address = ipaddr.process(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    return ipaddr.process(
      address
        .trim()
        .replace(/^\[|\]$/g, '')
        .replace(/%.*$/, ''),
    );
  } catch {
    return undefined;
  }
}

// A function of the module rather than a closure made per request: the server runs through tsx, whose named
// closures cost a property definition each time one is made, and this runs on every request.
function isTrusted(address: string, trusted: Range[]): boolean {
  const ip = parsed(address);
  return ip !== undefined && trusted.some(([base, bits]) => base.kind() === ip.kind() && ip.match(base, bits));
}

export function clientAddressOf(peer: string | undefined, forwardedFor: string, trusted: Range[]): string {
  const direct = peer ?? 'unknown';
  if (trusted.length === 0 || forwardedFor === '' || !isTrusted(direct, trusted)) return direct;
  const hops = forwardedFor.split(',').map((hop) => hop.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (!parsed(hop)) return direct; // a malformed hop: the chain cannot be believed past it
    if (!isTrusted(hop, trusted)) return parsed(hop)!.toString();
  }
  return parsed(hops[0]!)!.toString();
}

/** Sets `ctx.state.clientAddress` for everything after it. */
export function clientAddress(trusted: Range[]) {
  return function setClientAddress(ctx: Context, next: Next): Promise<void> {
    ctx.state.clientAddress = clientAddressOf(ctx.req.socket.remoteAddress, ctx.get('X-Forwarded-For'), trusted);
    return next();
  };
}
