// Crafted exchanges for the checks' own tests: a response as a server would send it, with the request that got it.
import { fileURLToPath } from 'node:url';
import { loadSpec, type Spec } from '../core/spec.ts';
import type { Exchange, HttpRequest } from '../core/types.ts';

let spec: Spec | undefined;

export function bundledSpec(): Spec {
  spec ??= loadSpec(
    fileURLToPath(new URL('../../generated/openapi.json', import.meta.url)),
    fileURLToPath(new URL('../../generated/asyncapi.json', import.meta.url)),
  );
  return spec;
}

export const REQUEST_ID = { 'x-request-id': '6f1c2b9a-0d3e-4f5a-8b7c-9d0e1f2a3b4c' };
export const RATE_HEADERS = { 'ratelimit-limit': '10', 'ratelimit-remaining': '9', 'ratelimit-reset': '1' };

export function crafted(
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  request: Partial<HttpRequest> = {},
): Exchange {
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
  const operation = bundledSpec().match(method, path);
  return {
    operationId: operation?.id,
    phase: 'examples',
    label: 'crafted',
    request: { method, path, headers: {}, ...request, url: `http://127.0.0.1:9/${path.replace(/^\//, '')}` },
    response: {
      status,
      headers: { 'content-type': contentType, ...REQUEST_ID, ...headers },
      text,
      body: typeof body === 'string' ? undefined : body,
      elapsedMs: 1,
    },
  };
}

export const v3Error = (code: string, param: string | null = null, type = 'invalid_request_error') => ({
  error: { type, code, message: 'Something is wrong.', param },
});
