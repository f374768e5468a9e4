// Headers every answer carries, before anything else runs (an error's answer keeps them): browsers must not guess a
// content type other than the declared one (an answer echoing client text is never run as a script), and a page
// opened from an answer (the docs, a result link) sends no Referer that could carry a signed link onward. The API
// sets no CORS headers at all: browsers on other origins cannot read its answers, which is the intended policy
// (keys are for servers; the docs' playground runs on this origin).
import type { Context, Next } from 'koa';

export function securityHeaders(ctx: Context, next: Next): Promise<void> {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  return next();
}
