// X-Request-Id on every response: a valid client value is echoed, otherwise a new UUID.
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';

const valid = /^[A-Za-z0-9._:-]{1,128}$/;

export async function requestId(ctx: Context, next: Next): Promise<void> {
  const sent = ctx.get('X-Request-Id');
  ctx.state.requestId = valid.test(sent) ? sent : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId as string);
  await next();
}
