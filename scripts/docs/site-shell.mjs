// The frame every page of the site's own shares: the header (menu button on narrow screens, home link, reference
// links, search, colour toggle), the menu of guides and reference pages, and the head that applies the reader's colour
// choice before the first paint. `prefix` is the path from a page to the site's root ('' or '../').
import { siteStyle } from './site-style.mjs';

export const escapeHtml = (text) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/**
 * Applies the stored colour choice (the key Redoc's pages use, so one choice holds across the site) or the system's,
 * as a class on <html> before anything is drawn.
 */
export const colourModeScript = `<script>try{var m=localStorage.getItem("redoc.colorMode");if(m!=="light"&&m!=="dark")m=matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light";document.documentElement.classList.add(m)}catch(e){}</script>`;

/** The header bar; on the Redoc pages it is the only piece of the site's frame. */
export function siteHeader(prefix, { menuButton = true } = {}) {
  return `<header class="site-header" role="banner">
${menuButton ? '<button type="button" class="site-menu-button" aria-controls="site-nav" aria-expanded="false">Menu</button>' : ''}
<a class="site-home" href="${prefix}index.html">Scribe <span>docs</span></a>
<span class="site-links"><a href="${prefix}guides/quickstart.html">Guides</a><a href="${prefix}api.html">HTTP API</a><a href="${prefix}streaming.html">Streaming</a></span>
<form class="site-search" role="search" action="${prefix}search.html" data-root="${prefix}">
<input type="search" name="q" placeholder="Search docs" aria-label="Search guides and reference" autocomplete="off">
<ul class="site-search-results" hidden></ul></form>
<button type="button" class="site-theme" aria-label="Switch between light and dark colours">Theme</button>
</header>`;
}

/** The menu shared by every page of the site's own. */
export function menu(guides, prefix, current) {
  const link = (href, text, here) => `<a href="${href}"${here ? ' aria-current="page"' : ''}>${escapeHtml(text)}</a>`;
  return `<nav class="site-nav" id="site-nav" aria-label="Documentation">${link(`${prefix}index.html`, 'Overview', current === 'index')}
<h2>Guides</h2>${guides.map((g) => link(`${prefix}guides/${g.name}.html`, g.title, g.name === current)).join('')}
<h2>Reference</h2>${link(`${prefix}api.html`, 'HTTP API')}${link(`${prefix}streaming.html`, 'Streaming API')}${link(`${prefix}changelog.html`, 'Changelog', current === 'changelog')}
<h2>Try it</h2>${link(`${prefix}playground.html`, 'Playground', current === 'playground')}</nav>`;
}

/** A whole page of the site's own: `head` adds to the head (the playground's script), `body` is the main content. */
export function sitePage({ title, prefix, guides, current, body, head = '' }) {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>${colourModeScript}<style>${siteStyle}</style>
<script src="${prefix}assets/site.js" defer></script>${head}</head>
<body class="site">${siteHeader(prefix)}<div class="site-layout">${menu(guides, prefix, current)}<main class="site-main" id="main">
${body}
</main></div></body>
</html>
`;
}
