// The site's landing page, the changelog page and the downloads: what each version number versions (the contract's
// info.version on the reference and the changelog; the server's package version that GET /health answers), and the
// contract documents and changelog as files a reader can save.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { escapeHtml, sitePage } from './site-shell.mjs';

/** Files offered for download: site path → source path (relative to the repository root). */
const downloads = [
  ['downloads/openapi.yaml', 'generated/openapi.yaml', 'OpenAPI 3.1 document (YAML)'],
  ['downloads/openapi.json', 'generated/openapi.json', 'OpenAPI 3.1 document (JSON)'],
  ['downloads/asyncapi.yaml', 'generated/asyncapi.yaml', 'AsyncAPI 3.0 document (YAML)'],
  ['downloads/asyncapi.json', 'generated/asyncapi.json', 'AsyncAPI 3.0 document (JSON)'],
  ['downloads/CHANGELOG.md', 'CHANGELOG.md', 'Changelog (Markdown)'],
];

export function copyDownloads(root, site) {
  mkdirSync(join(site, 'downloads'), { recursive: true });
  for (const [to, from] of downloads) copyFileSync(join(root, from), join(site, to));
  return downloads.map(([to]) => to);
}

export function versions(root) {
  const read = (file) => JSON.parse(readFileSync(join(root, file), 'utf8'));
  return {
    contract: read('generated/openapi.json').info.version,
    streaming: read('generated/asyncapi.json').info.version,
    server: read('package.json').version,
  };
}

export function writeChangelog(root, site, guides, renderMarkdown) {
  const { body } = renderMarkdown(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'));
  const note = `<p class="site-muted">Also as a file: <a href="downloads/CHANGELOG.md" download>CHANGELOG.md</a>.</p>`;
  const cut = body.indexOf('</h1>\n') + '</h1>\n'.length;
  writeFileSync(
    join(site, 'changelog.html'),
    sitePage({
      title: 'Changelog · Scribe',
      prefix: '',
      guides,
      current: 'changelog',
      body: `${body.slice(0, cut)}${note}${body.slice(cut)}`,
    }),
  );
}

export function writeLanding(root, site, guides, packed) {
  const v = versions(root);
  const list = downloads
    .map(
      ([to, , label]) => `<li><a href="${to}" download>${escapeHtml(label)}</a> <code>${to.split('/')[1]}</code></li>`,
    )
    .join('\n');
  const packages = packed
    .map(
      (p) =>
        `<li><a href="packages/${p.filename}">${escapeHtml(p.filename)}</a> (see <a href="guides/clients.html">Clients and tools</a>)</li>`,
    )
    .join('\n');
  const body = `<h1>Scribe API documentation</h1>
<p>Speech-to-text (sync, async, real-time stream), OpenAI-style chat and embeddings, prepaid billing. Start with the
<a href="guides/quickstart.html">Quickstart</a>, search everything from the box at the top, or try the API in the
<a href="playground.html">Playground</a>.</p>
<h2 id="guides">Guides</h2>
<ul>
${guides.map((g) => `<li><a href="guides/${g.name}.html">${escapeHtml(g.title)}</a></li>`).join('\n')}
</ul>
<h2 id="reference">Reference</h2>
<ul>
<li><a href="api.html">HTTP API</a> — every operation of v3, v2, v1, /health and the admin surface (OpenAPI 3.1).</li>
<li><a href="streaming.html">Streaming API</a> — the real-time WebSocket protocol and webhook events (AsyncAPI 3.0).</li>
<li><a href="changelog.html">Changelog</a> — what changed on the wire in each contract version.</li>
</ul>
<h2 id="versions">Versions</h2>
<p>Two numbers, for two different things:</p>
<table>
<thead><tr><th>Version</th><th>What it versions</th><th>Where you see it</th></tr></thead>
<tbody>
<tr><td><strong>${escapeHtml(v.contract)}</strong> (contract)</td><td>The API itself: the operations, fields, errors and stream messages
described in the reference. Changes to it are listed in the <a href="changelog.html">changelog</a>; the client packages
<code>scribe-client</code> and <code>scribe-conformance</code> carry the same number.</td><td><code>info.version</code> of
the HTTP (${escapeHtml(v.contract)}) and streaming (${escapeHtml(v.streaming)}) documents, shown at the top of each reference page.</td></tr>
<tr><td><strong>${escapeHtml(v.server)}</strong> (server)</td><td>This reference server's code (the <code>scribe</code>
package), which implements the contract above.</td><td>The <code>version</code> field of <code>GET /health</code>.</td></tr>
</tbody></table>
<h2 id="downloads">Downloads</h2>
<ul>
${list}
${packages}
</ul>`;
  writeFileSync(
    join(site, 'index.html'),
    sitePage({ title: 'Scribe API documentation', prefix: '', guides, current: 'index', body }),
  );
}
