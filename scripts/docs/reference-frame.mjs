// Puts the site's header (home, search, colour toggle) on top of a Redoc reference page, with the site's script that
// also turns Redoc's root-relative sidebar links into the page's hash routes (so they open cold in a new tab).
import { siteHeader } from './site-shell.mjs';
import { siteStyle } from './site-style.mjs';

/**
 * Redoc colours that are too faint to read (axe-core: under 4.5:1) replaced by darker or lighter ones of the same hue:
 * in light, its search placeholder (2.7:1), orange channel and green get/query tags (2.6:1, 2.7:1), blue links (3.8:1)
 * and code strings (4.45:1); in dark, its search placeholder (2.2:1) and violet send tags (4.3:1).
 */
const readableColours = `:root.light{--search-trigger-color:#5d606b;--color-blue-6:#0b5fd6;--color-blue-7:#2563c9;--color-green-7:#0f7a40}
:root.light .tag-channel{--tag-color:#9a5200}:root.light .tag-get,:root.light .tag-query{--tag-color:#137a43}
:root.dark{--search-trigger-color:#a9aebb}:root.dark .tag-send,:root.dark .tag-pub,:root.dark .tag-publish{--tag-color:#a3a5fb}`;

/**
 * On a phone Redoc's navigation button floats over the bottom right of the page: the text column keeps a gutter as
 * wide as the (slightly smaller) button, so the button never covers a line or a link such as an operation's Guide.
 */
const floatingButtonGutter = `@media (max-width:800px){.api-content{padding-right:3rem;box-sizing:border-box}
button[data-testid=floating-button]{width:2.6rem!important;height:2.6rem!important;right:.2rem!important;bottom:1rem!important}}`;

export function frameReferencePage(html) {
  // Redoc keeps its sidebar at the top of the window; the header scrolls away above it instead of covering it.
  const head = `<style>${siteStyle}.site-header{position:static}${readableColours}${floatingButtonGutter}</style><script src="assets/site.js" defer></script>`;
  const header = siteHeader('', { menuButton: false }).replace(
    '<header class="site-header"',
    '<header class="site-header" data-reference',
  );
  if (!html.includes('</head>') || !/<body[^>]*>/.test(html)) throw new Error('a Redoc page without <head> or <body>');
  return html.replace('</head>', `${head}</head>`).replace(/<body[^>]*>/, (body) => `${body}${header}`);
}
