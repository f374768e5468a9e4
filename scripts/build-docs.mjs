// `npm run docs`: a self-contained docs site in docs/site/ that works offline: the landing page, the guides, the
// changelog, the playground, the HTTP and streaming reference pages (Redoc, its scripts inlined with --inlineBundle,
// built from the bundles in generated/), one search index over all of them, and the contract documents to download.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listGuides, menu, renderGuides, renderMarkdown } from './render-guides.mjs';
import { siteHeader, colourModeScript } from './docs/site-shell.mjs';
import { siteStyle } from './docs/site-style.mjs';
import {
  linkGuidesAndOperations,
  listOperations,
  referenceRoute,
  withGuideLinks,
} from './docs/guide-operation-links.mjs';
import { referenceDocuments, writeSearchIndex } from './docs/search-index.mjs';
import { frameReferencePage } from './docs/reference-frame.mjs';
import { copyDownloads, writeChangelog, writeLanding } from './docs/landing-page.mjs';
import { buildPlayground } from '../docs/playground/build-playground.mjs';
import { redocly, root } from './spec-tools.mjs';
import { sampleLanguages } from './code-samples.mjs';
import { packIntoSite } from './docs/pack-packages.mjs';

// A build that cannot finish (a missing bundle: run `npm run generate`; a page that loads a remote resource; Redocly's
// own failure, printed above) ends in one line naming it, not a stack trace.
process.on('uncaughtException', (error) => {
  console.error(`npm run docs: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

const site = join(root, 'docs/site');
mkdirSync(join(site, 'assets'), { recursive: true });
copyFileSync(join(root, 'scripts/docs/site-client.js'), join(site, 'assets/site.js'));

const contract = JSON.parse(readFileSync(join(root, 'generated/openapi.json'), 'utf8'));
const asyncContract = JSON.parse(readFileSync(join(root, 'generated/asyncapi.json'), 'utf8'));
const operations = listOperations(contract);
const guideList = listGuides(join(root, 'docs/guides'));
const { guidesOf, operationsOf } = linkGuidesAndOperations(operations, guideList);
// The reference page is built from a copy of the bundle whose operation descriptions end in links to their guides;
// the contract in generated/ stays as it is.
const scratch = mkdtempSync(join(tmpdir(), 'scribe-docs-'));
const linkedContract = join(scratch, 'openapi.json');
writeFileSync(linkedContract, JSON.stringify(withGuideLinks(contract, guidesOf)));

const pages = [
  {
    file: 'api.html',
    source: linkedContract,
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
  html = frameReferencePage(html);
  writeFileSync(output, html);
  // Redoc's bundle also names icon CDNs for features this site does not use; the browser test (test/docs) records
  // every request the pages really make and fails on any host but localhost.
  const match = html.match(externalLoad);
  if (match) throw new Error(`${page.file} loads a remote resource: ${match[0]}`);
}

rmSync(scratch, { recursive: true, force: true });

const guides = renderGuides(guideList, site, { operationsOf, referenceRoute });
const packed = packIntoSite(root, site);
await buildPlayground(site, {
  menu: (prefix, current) => `${siteHeader(prefix)}<div class="site-layout">${menu(guideList, prefix, current)}`,
  head: `${colourModeScript}<script src="assets/site.js" defer></script>`,
  style: siteStyle,
  externalLoad,
});
writeChangelog(root, site, guideList, renderMarkdown);
const downloads = copyDownloads(root, site);
writeLanding(root, site, guideList, packed);

const searchable = writeSearchIndex(site, [
  ...guides.flatMap((guide) => [
    { url: `guides/${guide.name}.html`, title: guide.title, kind: 'Guide', text: guide.text.split('\n## ')[0] },
    ...guide.sections.map((section) => ({
      url: `guides/${guide.name}.html#${section.id}`,
      title: section.title,
      kind: `Guide · ${guide.title}`,
      text: section.text,
    })),
  ]),
  ...referenceDocuments(contract, operations, asyncContract, referenceRoute),
  {
    url: 'changelog.html',
    title: 'Changelog',
    kind: 'Reference',
    text: readFileSync(join(root, 'CHANGELOG.md'), 'utf8'),
  },
]);

console.log(
  `docs/site/: ${pages.map((p) => p.file).join(', ')}, index.html, changelog.html, playground.html, ` +
    `guides/ (${guides.length}), search (${searchable} entries), ${downloads.join(', ')}, ` +
    `packages/ (${packed.map((p) => p.filename).join(', ')})`,
);
