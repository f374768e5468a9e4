// Renders docs/guides/*.md into docs/site/guides/*.html in the site's frame (scripts/docs/site-shell.mjs): links
// between guides rewritten from `x.md` to `x.html`, every heading with an id and a link to itself, a table of contents
// of the guide's sections, code highlighted at build time with highlight.js (nothing runs in the reader's browser for
// it), the run/norun marks of code blocks (read by the guide test) left out of the page, and a closing list of the
// reference operations the guide explains. Nothing is loaded from another host.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Marked } from 'marked';
import hljs from 'highlight.js';
import { escapeHtml, menu, sitePage } from './docs/site-shell.mjs';

export { escapeHtml, menu };

/** Reading order of the menu; a guide missing here comes after these, by file name. */
const order = [
  'quickstart',
  'authentication',
  'transcription',
  'models',
  'streaming',
  'webhooks',
  'errors-and-retries',
  'rate-limits',
  'billing',
  'openai-sdk',
  'ai-sdk',
  'langchain',
  'clients',
  'client-generators',
  'conformance',
  'configuration',
  'deployment',
  'development',
];

/** Fence languages as highlight.js names them; a block in another language is shown plain. */
const highlightName = {
  sh: 'bash',
  shell: 'bash',
  ts: 'typescript',
  js: 'javascript',
  py: 'python',
  text: 'plaintext',
};

/** The guides in menu order: file name, page name, title (the first `# ` line) and text. */
export function listGuides(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.md'));
  const rank = (name) => (order.includes(name) ? order.indexOf(name) : order.length);
  return files
    .map((file) => {
      const name = file.slice(0, -3);
      const text = readFileSync(join(dir, file), 'utf8');
      const title = text.match(/^# (.+)$/m)?.[1] ?? name;
      return { file, name, title, text };
    })
    .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
}

/** GitHub's heading ids (lower case, punctuation dropped, spaces to hyphens, repeats numbered), so links stay valid. */
function slugger() {
  const seen = new Map();
  return (text) => {
    const base = text
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return count ? `${base}-${count}` : base;
  };
}

function highlighted(text, lang) {
  const name = highlightName[lang] ?? lang;
  if (!name || !hljs.getLanguage(name)) return { html: escapeHtml(text), name: '' };
  return { html: hljs.highlight(text, { language: name, ignoreIllegals: true }).value, name };
}

/** One guide as HTML, and its sections (id, depth, title, plain text) for the table of contents and the search. */
export function renderMarkdown(text) {
  const slug = slugger();
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth, anchor }) {
        const self = depth === 1 ? '' : `<a class="anchor" href="#${anchor}" aria-label="Link to this section">#</a>`;
        return `<h${depth} id="${anchor}">${this.parser.parseInline(tokens)}${self}</h${depth}>\n`;
      },
      code({ text: code, lang }) {
        const language = (lang ?? '').split(/\s/)[0];
        const { html, name } = highlighted(code, language);
        const label = language ? ` data-lang="${escapeHtml(language)}"` : '';
        return `<div class="site-code"${label}><pre tabindex="0"><code class="hljs${name ? ` language-${name}` : ''}">${html}</code></pre></div>\n`;
      },
    },
  });
  const tokens = marked.lexer(text);
  marked.walkTokens(tokens, (token) => {
    if (token.type === 'link' && /^[a-z0-9-]+\.md(#.*)?$/.test(token.href))
      token.href = token.href.replace('.md', '.html');
  });
  const sections = [];
  for (const token of tokens) {
    if (token.type === 'heading') {
      const title = token.text.replace(/[`*_]/g, '');
      token.anchor = slug(title);
      if (token.depth === 2 || token.depth === 3)
        sections.push({ id: token.anchor, depth: token.depth, title, text: '' });
    } else if (sections.length && token.type !== 'space') sections.at(-1).text += ` ${token.raw}`;
  }
  return { body: marked.parser(tokens), sections };
}

function tableOfContents(sections) {
  if (sections.length < 2) return '';
  const items = sections
    .map((s) => `<li class="depth-${s.depth}"><a href="#${s.id}">${escapeHtml(s.title)}</a></li>`)
    .join('');
  return `<details class="site-toc" open><summary>On this page</summary><ul>${items}</ul></details>`;
}

function operationsList(operations, referenceRoute) {
  if (!operations.length) return '';
  const items = operations
    .map(
      (op) =>
        `<li><a href="../${referenceRoute(op)}">${escapeHtml(op.summary || op.operationId)}</a> <code>${op.method.toUpperCase()} ${escapeHtml(op.path)}</code></li>`,
    )
    .join('\n');
  return `<section class="site-operations" aria-labelledby="operations-in-this-guide"><h2 id="operations-in-this-guide">Operations in this guide<a class="anchor" href="#operations-in-this-guide" aria-label="Link to this section">#</a></h2>
<p>The HTTP API reference of each operation this guide explains or uses:</p><ul>
${items}</ul></section>`;
}

/**
 * Writes every guide; `operationsOf` (guide name → operations) and `referenceRoute` give each guide its reference
 * links. Returns the guides with their sections, for the search.
 */
export function renderGuides(guides, site, { operationsOf, referenceRoute }) {
  mkdirSync(join(site, 'guides'), { recursive: true });
  return guides.map((guide) => {
    const { body, sections } = renderMarkdown(guide.text);
    // The table of contents goes right after the title, before the guide's first paragraph.
    const cut = body.indexOf('</h1>\n') + '</h1>\n'.length;
    const content = `${body.slice(0, cut)}${tableOfContents(sections)}${body.slice(cut)}${operationsList(operationsOf.get(guide.name) ?? [], referenceRoute)}`;
    writeFileSync(
      join(site, 'guides', `${guide.name}.html`),
      sitePage({ title: `${guide.title} · Scribe`, prefix: '../', guides, current: guide.name, body: content }),
    );
    return { ...guide, sections };
  });
}
