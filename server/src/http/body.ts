// Reading request bodies: JSON bodies are read whole up to a limit (they are small; the signature of v2 requests may
// cover them), never parsed by a generic body parser before the operation is known.
import type { Context } from 'koa';
import { ApiError, errors } from './api-error.ts';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

export async function readRawBody(ctx: Context, limit = JSON_BODY_LIMIT_BYTES): Promise<Buffer> {
  const declared = Number(ctx.get('Content-Length') || 0);
  if (declared > limit)
    throw new ApiError(400, 'invalid_parameter', `The request body is over ${limit} bytes.`, 'body');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ApiError(400, 'invalid_parameter', `The request body is over ${limit} bytes.`, 'body');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw errors.invalidJson();
  }
}

export function mediaTypeOf(ctx: Context): string {
  const header = ctx.get('Content-Type');
  // Most requests (every GET) have none: nothing to split.
  if (header === '') return '';
  return (header.split(';')[0] ?? '').trim().toLowerCase();
}
