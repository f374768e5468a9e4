// `npm run docs`: a self-contained docs site in docs/site/ (HTTP API page, streaming page, index) that works offline.
// Redoc's scripts are inlined (--inlineBundle); the pages are built from the bundles in generated/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { escapeHtml, menu, renderGuides, style } from './render-guides.mjs';
import { buildPlayground } from '../docs/playground/build-playground.mjs';
import { redocly, root } from './spec-tools.mjs';
import { sampleLanguages } from './code-samples.mjs';
import { packIntoSite } from './docs/pack-packages.mjs';

const site = join(root, 'docs/site');
mkdirSync(site, { recursive: true });

const pages = [
  {
    file: 'api.html',
    source: 'generated/openapi.yaml',
    title: 'Scribe HTTP API',
    // Redoc shows only the code samples whose label is in its language list (its default has no TypeScript).
    options: ['--openapi', JSON.stringify({ codeSamples: { languages: sampleLanguages } })],
  },
  { file: 'streaming.html', source: 'generated/asyncapi.yaml', title: 'Scribe streaming API' },
];

// Anything the page would fetch from another host breaks offline use; fail the build rather than ship it.
const externalLoad = /<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i;
// Redoc's footer attribution loads its logo from Redocly's CDN at run time; serve the same words from the page itself.
const attributionLogo = (text) =>
  `data:image/svg+xml,${encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${text.length * 9}" height="20"><text x="0" y="15" font-family="sans-serif" font-size="14">${text}</text></svg>`,
  )}`;
const cdnAssets = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': attributionLogo('Redocly'),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': attributionLogo('R'),
};

for (const page of pages) {
  const output = join(site, page.file);
  redocly([
    'build-docs',
    page.source,
    '--inlineBundle',
    '--title',
    page.title,
    '--output',
    output,
    ...(page.options ?? []),
  ]);
  let html = readFileSync(output, 'utf8');
  for (const [url, local] of Object.entries(cdnAssets)) html = html.replaceAll(url, local);
  // No favicon request to the server (a 404 in the browser's console): an empty icon inside the page.
  html = html.replace('<head>', '<head><link rel="icon" href="data:,">');
  writeFileSync(output, html);
  // Redoc's bundle also names icon CDNs for features this site does not use; the browser test (test/docs) records
  // every request the pages really make and fails on any host but localhost.
  const match = html.match(externalLoad);
  if (match) throw new Error(`${page.file} loads a remote resource: ${match[0]}`);
}

const guides = renderGuides(join(root, 'docs/guides'), site);
const packed = packIntoSite(root, site);
await buildPlayground(site, { menu: (prefix, current) => menu(guides, prefix, current), style, externalLoad });

writeFileSync(
  join(site, 'index.html'),
  `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">
<title>Scribe API documentation</title><style>${style}</style></head>
<body>${menu(guides, '', null)}<main>
<h1>Scribe API documentation</h1>
<p>Speech-to-text (sync, async, real-time stream), OpenAI-style chat and embeddings, prepaid billing. Start with the
<a href="guides/quickstart.html">Quickstart</a>.</p>
<h2>Guides</h2>
<ul>
${guides.map((g) => `<li><a href="guides/${g.name}.html">${escapeHtml(g.title)}</a></li>`).join('\n')}
</ul>
<h2>Reference</h2>
<ul>
<li><a href="api.html">HTTP API</a> — every operation of v3, v2, v1, /health and the admin surface (OpenAPI 3.1).</li>
<li><a href="streaming.html">Streaming API</a> — the real-time WebSocket protocol and webhook events (AsyncAPI 3.0).</li>
</ul>
</main></body>
</html>
`,
);
console.log(
  `docs/site/: ${pages.map((p) => p.file).join(', ')}, index.html, playground.html, guides/ (${guides.length}), ` +
    `packages/ (${packed.map((p) => p.filename).join(', ')})`,
);
