// Signing of v2/v1 requests as the contract describes (securitySchemes PublicKey + Timestamp + Signature), as a
// request interceptor for the generated fetch client. The timestamp is taken once per request so the three headers
// always agree.
import { createHash, createHmac } from 'node:crypto';

export function canonicalString(publicKey: string, timestamp: string): string {
  return `${publicKey}\n${timestamp}`;
}

export function sign(secret: string, canonical: string): string {
  return createHmac('sha256', secret).update(canonical).digest('hex');
}

/** `X-Signature-Version: 2` extension: the signature also covers method, path with query and the body's SHA-256. */
export async function canonicalStringV2(publicKey: string, timestamp: string, request: Request): Promise<string> {
  const url = new URL(request.url);
  const body = Buffer.from(await request.clone().arrayBuffer());
  const bodyHash = createHash('sha256').update(body).digest('hex');
  return `${publicKey}\n${timestamp}\n${request.method}\n${url.pathname}${url.search}\n${bodyHash}`;
}

export function signingInterceptor(
  publicKey: string,
  secret: string,
  options: { version?: 1 | 2; now?: () => number } = {},
) {
  return async (request: Request): Promise<Request> => {
    const timestamp = String(Math.floor((options.now ?? Date.now)() / 1000));
    const canonical =
      options.version === 2
        ? await canonicalStringV2(publicKey, timestamp, request)
        : canonicalString(publicKey, timestamp);
    request.headers.set('X-Public-Key', publicKey);
    request.headers.set('X-Timestamp', timestamp);
    request.headers.set('X-Signature', sign(secret, canonical));
    if (options.version === 2) request.headers.set('X-Signature-Version', '2');
    return request;
  };
}
