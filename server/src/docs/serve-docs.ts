// The built documentation site (docs/site/, made by `npm run docs`) served at /docs/ beside the API: static files
// only, no directory listing, nothing outside the site's folder. The site is not built at start (Redocly takes
// seconds and `npm start` must stay fast): until it is built, /docs/ answers a page saying how to build it, and a
// build made while the server runs is served without a restart. /docs is not part of the API contract, so these
// requests never reach the contract router and its JSON 404/405 answers.
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Context, Next } from 'koa';
import { contentTypeOf } from './content-types.ts';
import { inlineScriptSources, pagePolicy } from './page-policy.ts';
import { resolveSitePath } from './resolve-site-path.ts';

export const DOCS_PREFIX = '/docs';
const DOCS_SUBTREE = `${DOCS_PREFIX}/`;

/** The site `npm run docs` builds, relative to this module (server/src/docs/ → docs/site/). */
export const defaultSiteDir = fileURLToPath(new URL('../../../docs/site/', import.meta.url));

/** The policy of the pages this module writes itself (no scripts). */
const fixedPagePolicy = pagePolicy([]);

const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Documentation not built · Scribe</title><link rel="icon" href="data:,"></head>
<body style="font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto">
<h1>The documentation site is not built</h1>
<p>Run <code>npm run docs</code> in the Scribe checkout, then reload this page (no restart is needed).</p>
</body></html>
`;

const notFoundPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not found · Scribe docs</title><link rel="icon" href="data:,"></head>
<body style="font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto">
<h1>Not found</h1><p>This page is not part of the documentation. <a href="/docs/">Back to the documentation</a>.</p>
</body></html>
`;

function answerPage(ctx: Context, status: number, page: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', fixedPagePolicy);
  ctx.body = page;
}

async function fileInfo(path: string) {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

export function serveDocs(options: { dir?: string } = {}) {
  const dir = options.dir ?? defaultSiteDir;
  // Each page's policy names its inline scripts' hashes: read once per version of the file (a rebuild changes its
  // size or time), not on every visit (the reference page is megabytes).
  const policies = new Map<string, { version: string; policy: string }>();
  async function policyOf(file: string, version: string): Promise<string> {
    const known = policies.get(file);
    if (known?.version === version) return known.policy;
    const policy = pagePolicy(inlineScriptSources(await readFile(file, 'utf8')));
    policies.set(file, { version, policy });
    return policy;
  }
  // Every API request passes through here: for them this is a plain call that hands on the rest's promise, so the
  // site's async work (stat, streams) is only entered for /docs itself.
  return function docsSite(ctx: Context, next: Next): Promise<void> {
    const path = ctx.path;
    if (path !== DOCS_PREFIX && !path.startsWith(DOCS_SUBTREE)) return next();
    return serveSite(ctx);
  };

  async function serveSite(ctx: Context): Promise<void> {
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'The documentation is read with GET or HEAD.\n';
      return;
    }
    // Relative links of the pages are written from the site's root: /docs has to become /docs/.
    if (ctx.path === DOCS_PREFIX) {
      ctx.status = 301;
      ctx.redirect(`${DOCS_PREFIX}/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
      return;
    }
    if (!(await fileInfo(`${dir}/index.html`))?.isFile()) return answerPage(ctx, 404, notBuiltPage);

    const relative = resolveSitePath(dir, ctx.path.slice(DOCS_PREFIX.length));
    if (!relative) return answerPage(ctx, 404, notFoundPage);
    let file = relative;
    let info = await fileInfo(file);
    if (info?.isDirectory()) {
      // A folder is served through its index.html only (never listed), and at its address with a trailing slash.
      if (!ctx.path.endsWith('/')) {
        ctx.status = 301;
        ctx.redirect(`${ctx.path}/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
        return;
      }
      file = `${file}/index.html`;
      info = await fileInfo(file);
    }
    if (!info?.isFile()) return answerPage(ctx, 404, notFoundPage);

    const type = contentTypeOf(file);
    ctx.type = type;
    // Pages are revalidated on every visit (a rebuild shows at once); their assets keep their names across builds,
    // so they are cached briefly rather than forever.
    ctx.set('Cache-Control', type.startsWith('text/html') ? 'no-cache' : 'public, max-age=300');
    if (type.startsWith('text/html'))
      ctx.set('Content-Security-Policy', await policyOf(file, `${info.size}-${info.mtimeMs}`));
    ctx.lastModified = info.mtime;
    ctx.etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.length = info.size;
    // Koa answers HEAD without a body; the file is opened only when it is sent.
    if (ctx.method === 'GET') ctx.body = createReadStream(file);
  }
}
