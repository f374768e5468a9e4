// The Content-Security-Policy of one page of the docs site: scripts only from this server, plus exactly the inline
// scripts the page was built with, each allowed by its SHA-256 hash. No 'unsafe-inline' for scripts: the playground
// keeps an API key in sessionStorage, which every same-origin page of the tab can read, so a script injected into any
// page (the reference included) must not run. Styles stay 'unsafe-inline': Redoc styles its pages at run time, and a
// style cannot read storage.
import { createHash } from 'node:crypto';

/** A <script> element without `src`: its text is run inline. */
const inlineScript = /<script\b(?![^>]*\bsrc\s*=)[^>]*>([\s\S]*?)<\/script\s*>/gi;

/** The CSP source of each inline script of the page, in order (duplicates once). */
export function inlineScriptSources(html: string): string[] {
  const sources = new Set<string>();
  for (const [, text] of html.matchAll(inlineScript)) {
    if (text!.length === 0) continue;
    sources.add(`'sha256-${createHash('sha256').update(text!, 'utf8').digest('base64')}'`);
  }
  return [...sources];
}

/**
 * What a page may load: this server only, so a page that reached for another host fails in the browser instead of
 * silently depending on the network. data: and blob: URLs serve icons and the playground's audio worklet, and the
 * playground opens a WebSocket back to this server.
 */
export function pagePolicy(inlineSources: readonly string[]): string {
  return [
    "default-src 'self'",
    ['script-src', "'self'", ...inlineSources, 'blob:'].join(' '),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "media-src 'self' blob: data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}
