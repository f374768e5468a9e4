// The stylesheet of the site's own pages (landing, guides, changelog, playground) and of the bar placed on top of the
// Redoc reference pages. Colours are variables so one set of rules serves light and dark; the dark set applies when
// the reader's system asks for it, unless a choice was made with the toggle (the `light`/`dark` class Redoc also uses
// on <html>, so the reference pages and these share one setting). Rules are scoped to the site's classes so that
// Redoc's own styles and these never meet.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

const light = {
  fg: '#1d2330',
  bg: '#ffffff',
  muted: '#4f5764',
  panel: '#f4f6fa',
  line: '#c9d0db',
  link: '#1a4fa8',
  current: '#dde4f2',
};
const dark = {
  fg: '#e6e9ef',
  bg: '#14171c',
  muted: '#aeb5c1',
  panel: '#1e232b',
  line: '#3d4550',
  link: '#94bbff',
  current: '#2c3747',
};
const variables = (colours, scheme) =>
  `${Object.entries(colours)
    .map(([name, value]) => `--s-${name}:${value}`)
    .join(';')};color-scheme:${scheme}`;

/** highlight.js themes, each scoped to its colour scheme (its a11y light and dark: every token at 4.5:1 or more). */
function highlightTheme(file, scope) {
  const css = readFileSync(require.resolve(`highlight.js/styles/${file}`), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  return css.replace(/(^|})\s*([^{}@]+)\{/g, (_, end, selectors) => {
    const scoped = selectors
      .split(',')
      .map((s) => `${scope} ${s.trim()}`)
      .join(',');
    return `${end}${scoped}{`;
  });
}

export const siteStyle = `:root{${variables(light, 'light')}}
:root.dark{${variables(dark, 'dark')}}
@media (prefers-color-scheme:dark){:root:not(.light){${variables(dark, 'dark')}}}
body.site{font:16px/1.55 system-ui,sans-serif;margin:0;color:var(--s-fg);background:var(--s-bg)}
.site a{color:var(--s-link)}
.site-header{position:sticky;top:0;z-index:20;display:flex;align-items:center;gap:.5rem;padding:.45rem .8rem;
background:var(--s-panel);border-bottom:1px solid var(--s-line);font:15px/1.4 system-ui,sans-serif;color:var(--s-fg);box-sizing:border-box}
.site-header a.site-home{font-weight:700;color:var(--s-fg);text-decoration:none;white-space:nowrap}
.site-header button{font:inherit;color:var(--s-fg);background:var(--s-bg);border:1px solid var(--s-line);border-radius:6px;
padding:.3rem .6rem;cursor:pointer;min-height:2.25rem}
.site-header .site-links{display:flex;gap:.8rem;margin-left:.5rem}.site-header .site-links a{color:var(--s-link)}
.site-search{position:relative;margin-left:auto;flex:0 1 20rem;min-width:0}
.site-search input{width:100%;box-sizing:border-box;font:inherit;padding:.35rem .6rem;border:1px solid var(--s-line);
border-radius:6px;background:var(--s-bg);color:var(--s-fg);min-height:2.25rem}
.site-search-results{position:absolute;right:0;top:calc(100% + .3rem);width:min(32rem,calc(100vw - 1.6rem));max-height:70vh;
overflow:auto;background:var(--s-bg);border:1px solid var(--s-line);border-radius:8px;box-shadow:0 6px 24px #0003;
margin:0;padding:.3rem;list-style:none;box-sizing:border-box}
.site-search-results[hidden]{display:none}.site-search-results li a{display:block;padding:.4rem .5rem;border-radius:5px;
text-decoration:none;color:var(--s-fg)}.site-search-results li a:hover,.site-search-results li a:focus{background:var(--s-current)}
.site-search-results small{display:block;color:var(--s-muted)}
.site-layout{display:flex;align-items:flex-start}
.site-nav{width:15rem;flex:none;padding:1rem;background:var(--s-panel);box-sizing:border-box;position:sticky;
top:3.2rem;max-height:calc(100vh - 3.2rem);overflow:auto;align-self:flex-start}
.site-nav a{display:block;padding:.25rem .4rem;color:var(--s-fg);text-decoration:none;border-radius:4px}
.site-nav a[aria-current]{background:var(--s-current);font-weight:600}
.site-nav h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:var(--s-muted);margin:1rem 0 .3rem}
.site-menu-button{display:none}
.site-main{max-width:52rem;padding:1.5rem 2.5rem;min-width:0;flex:1;overflow-wrap:anywhere}
.site-main pre{padding:0;margin:1rem 0;overflow:auto;border-radius:6px;border:1px solid var(--s-line)}
.site-main pre code.hljs{display:block;padding:.8rem;width:max-content;min-width:100%;box-sizing:border-box}
.site-main code{font:14px/1.45 ui-monospace,monospace}
.site-main :not(pre)>code{background:var(--s-panel);padding:.05rem .25rem;border-radius:4px}
.site-main table{border-collapse:collapse;margin:1rem 0;display:block;overflow-x:auto;max-width:100%}
.site-main td,.site-main th{border:1px solid var(--s-line);padding:.3rem .6rem;vertical-align:top;text-align:left}
.site-main h1,.site-main h2,.site-main h3,.site-main h4{scroll-margin-top:4rem}
.site-main .anchor{margin-left:.4rem;text-decoration:none;color:var(--s-muted);font-weight:400}
.site-toc{border:1px solid var(--s-line);border-radius:8px;padding:.4rem 1rem;margin:1rem 0;background:var(--s-panel)}
.site-toc summary{cursor:pointer;font-weight:600}.site-toc ul{margin:.3rem 0;padding-left:1.2rem}
.site-toc li.depth-3{margin-left:1rem}
.site-code{position:relative}.site-code pre{margin-top:2.2rem}
.site-copy{position:absolute;top:-1.9rem;right:0;font:13px system-ui,sans-serif;
color:var(--s-fg);background:var(--s-bg);border:1px solid var(--s-line);border-radius:5px;padding:.2rem .5rem;cursor:pointer}
.site-operations{border-top:1px solid var(--s-line);margin-top:2rem}
.site-muted{color:var(--s-muted)}
.site-main input,.site-main select,.site-main textarea{max-width:100%;box-sizing:border-box}
@media (max-width:800px){
.site-menu-button{display:inline-block}.site-header .site-links{display:none}
.site-layout{display:block}.site-nav{display:none;width:auto;position:static;max-height:none}
.site-layout.nav-open .site-nav{display:block;border-bottom:1px solid var(--s-line)}
.site-main{padding:1rem}.site-search{flex-basis:auto}
.site-search-results{position:fixed;left:.5rem;right:.5rem;top:3.3rem;width:auto}}
@media (max-width:420px){.site-header .site-home span{display:none}}
${highlightTheme('a11y-light.css', ':root:not(.dark)')}
${highlightTheme('a11y-dark.css', ':root.dark')}
@media (prefers-color-scheme:dark){${highlightTheme('a11y-dark.css', ':root:not(.light)')}}
`;
