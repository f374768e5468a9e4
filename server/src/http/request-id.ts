// X-Request-Id on every response: a valid client value is echoed, otherwise a new UUID.
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';

const valid = /^[A-Za-z0-9._:-]{1,128}$/;

// Not an async function: it has nothing to do after the rest, so it hands back their promise as it is.
export function requestId(ctx: Context, next: Next): Promise<void> {
  const sent = ctx.get('X-Request-Id');
  const id = valid.test(sent) ? sent : randomUUID();
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  return next();
}
