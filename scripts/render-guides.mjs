// Renders docs/guides/*.md into docs/site/guides/*.html: one page per guide with a menu of every guide and the
// reference pages, links between guides rewritten from `x.md` to `x.html`, the run/norun marks of code blocks (read
// by the guide test) left out of the page. Nothing is loaded from another host.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Marked } from 'marked';

/** Reading order of the menu; a guide missing here comes after these, by file name. */
const order = [
  'quickstart',
  'authentication',
  'transcription',
  'streaming',
  'webhooks',
  'errors-and-retries',
  'rate-limits',
  'billing',
  'openai-sdk',
  'client-generators',
  'conformance',
  'configuration',
  'deployment',
];

export const escapeHtml = (text) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

export const style = `body{font:16px/1.55 system-ui,sans-serif;margin:0;display:flex;color:#1d2330}
nav{width:15rem;flex:none;padding:1.5rem 1rem;background:#f4f6fa;min-height:100vh;box-sizing:border-box}
nav a{display:block;padding:.2rem .4rem;color:#1d2330;text-decoration:none;border-radius:4px}
nav a[aria-current]{background:#dde4f2;font-weight:600}nav h2{font-size:.8rem;text-transform:uppercase;color:#667}
main{max-width:52rem;padding:1.5rem 2.5rem;min-width:0}pre{background:#f4f6fa;padding:.8rem;overflow:auto;border-radius:6px}
code{font:14px/1.45 ui-monospace,monospace}table{border-collapse:collapse;margin:1rem 0}
td,th{border:1px solid #d5dae3;padding:.3rem .6rem;vertical-align:top;text-align:left}`;

/** The guides in menu order: file name, page name and title (the first `# ` line). */
export function listGuides(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.md'));
  const rank = (name) => (order.includes(name) ? order.indexOf(name) : order.length);
  return files
    .map((file) => {
      const name = file.slice(0, -3);
      const title = readFileSync(join(dir, file), 'utf8').match(/^# (.+)$/m)?.[1] ?? name;
      return { file, name, title };
    })
    .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
}

/** The menu shared by the index and every guide; `prefix` is the path from the page to the site root. */
export function menu(guides, prefix, current) {
  const link = (href, text, here) => `<a href="${href}"${here ? ' aria-current="page"' : ''}>${escapeHtml(text)}</a>`;
  return `<nav><a href="${prefix}index.html"><strong>Scribe docs</strong></a>
<h2>Guides</h2>${guides.map((g) => link(`${prefix}guides/${g.name}.html`, g.title, g.name === current)).join('')}
<h2>Reference</h2>${link(`${prefix}api.html`, 'HTTP API')}${link(`${prefix}streaming.html`, 'Streaming API')}
<h2>Try it</h2>${link(`${prefix}playground.html`, 'Playground', current === 'playground')}</nav>`;
}

export function renderGuides(dir, site) {
  const guides = listGuides(dir);
  const marked = new Marked({
    gfm: true,
    renderer: {
      code({ text, lang }) {
        const language = (lang ?? '').split(/\s/)[0];
        return `<pre><code${language ? ` class="language-${escapeHtml(language)}"` : ''}>${escapeHtml(text)}</code></pre>\n`;
      },
    },
    walkTokens(token) {
      if (token.type === 'link' && /^[a-z0-9-]+\.md(#.*)?$/.test(token.href))
        token.href = token.href.replace('.md', '.html');
    },
  });
  mkdirSync(join(site, 'guides'), { recursive: true });
  for (const guide of guides) {
    const body = marked.parse(readFileSync(join(dir, guide.file), 'utf8'));
    writeFileSync(
      join(site, 'guides', `${guide.name}.html`),
      `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">
<title>${escapeHtml(guide.title)} · Scribe</title><style>${style}</style></head>
<body>${menu(guides, '../', guide.name)}<main>${body}</main></body>
</html>
`,
    );
  }
  return guides;
}
