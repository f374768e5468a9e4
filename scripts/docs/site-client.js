// The site's script in the reader's browser (copied to docs/site/assets/site.js): the menu button on narrow screens,
// the light/dark toggle, the search box over the index built with the site, copy buttons on code blocks, and on the
// Redoc pages sidebar links that open the same place in a new tab and an example picker named as it reads. Plain
// DOM, no build step.
/* global document, window, MutationObserver, MiniSearch */

const header = document.querySelector('.site-header');

function setUpMenu() {
  const button = document.querySelector('.site-menu-button');
  const layout = document.querySelector('.site-layout');
  if (!button || !layout) return;
  button.addEventListener('click', () => {
    const open = layout.classList.toggle('nav-open');
    button.setAttribute('aria-expanded', String(open));
  });
}

// The choice is kept under Redoc's own key and as Redoc's class on <html>, so the reference pages follow it too.
function setUpTheme() {
  const button = document.querySelector('.site-theme');
  if (!button) return;
  const root = document.documentElement;
  const label = () => {
    const dark = root.classList.contains('dark');
    button.textContent = dark ? 'Light' : 'Dark';
    button.setAttribute('aria-pressed', String(dark));
  };
  button.addEventListener('click', () => {
    const next = root.classList.contains('dark') ? 'light' : 'dark';
    root.classList.remove('light', 'dark');
    root.classList.add(next);
    try {
      localStorage.setItem('redoc.colorMode', next);
    } catch {
      // Storage refused (private mode): the choice lasts for this page only.
    }
    label();
  });
  label();
}

function setUpSearch() {
  const form = document.querySelector('.site-search');
  if (!form) return;
  const input = form.querySelector('input');
  const list = form.querySelector('.site-search-results');
  const root = form.dataset.root ?? '';
  let index;
  const load = async () => {
    if (index) return index;
    await new Promise((resolve, reject) => {
      if (window.MiniSearch) return resolve();
      const script = document.createElement('script');
      script.src = `${root}assets/minisearch.js`;
      script.onload = resolve;
      script.onerror = () => reject(new Error('the search could not be loaded'));
      document.head.append(script);
    });
    const data = await (await fetch(`${root}assets/search-index.json`)).json();
    index = MiniSearch.loadJS(data.index, { ...data.options, searchOptions: data.options.searchOptions });
    index.defaultOptions = data.options.searchOptions;
    return index;
  };
  const show = async () => {
    const query = input.value.trim();
    if (query.length < 2) {
      list.hidden = true;
      return;
    }
    let results;
    try {
      const search = await load();
      results = search.search(query, search.defaultOptions).slice(0, 12);
    } catch (error) {
      list.innerHTML = '';
      const item = document.createElement('li');
      item.textContent = error.message;
      list.append(item);
      list.hidden = false;
      return;
    }
    list.innerHTML = '';
    for (const result of results) {
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = `${root}${result.url}`;
      link.textContent = result.title;
      const kind = document.createElement('small');
      kind.textContent = result.kind;
      link.append(kind);
      item.append(link);
      list.append(item);
    }
    if (!results.length) {
      const item = document.createElement('li');
      item.textContent = `Nothing found for “${query}”.`;
      list.append(item);
    }
    list.hidden = false;
  };
  input.addEventListener('input', show);
  input.addEventListener('focus', () => load().catch(() => {}));
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') list.hidden = true;
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    list.querySelector('a')?.click();
  });
  document.addEventListener('click', (event) => {
    if (!form.contains(event.target)) list.hidden = true;
  });
}

function setUpCopyButtons() {
  for (const block of document.querySelectorAll('.site-code')) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'site-copy';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy this code');
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(block.querySelector('code').textContent);
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Select and copy';
      }
      window.setTimeout(() => (button.textContent = 'Copy'), 2000);
    });
    block.append(button);
  }
}

// Redoc's sidebar links are written as paths from the host's root (/webhooks); clicked, Redoc routes them inside the
// page (api.html#/webhooks), but opened in a new tab they would ask the server for /webhooks. Each such link gets the
// hash route it stands for, which Redoc opens when the page is loaded cold.
function keepReferenceLinksInPage() {
  const content = document.querySelector('[data-reference]');
  if (!content) return;
  const page = window.location.pathname.split('/').pop();
  const fix = () => {
    for (const link of document.querySelectorAll('a[href^="/"]:not([href^="//"])')) {
      if (link.closest('.site-header')) continue;
      link.setAttribute('href', `${page}#${link.getAttribute('href')}`);
    }
    // Redoc's example picker is named "Example" while it shows the example's name: a screen reader user saying what
    // they see would not find it. Its name gets the shown text too (set only when it differs, so no loop).
    for (const button of document.querySelectorAll('button[aria-haspopup="menu"][aria-label^="Example"]')) {
      const name = `Example: ${button.textContent.trim()}`;
      if (button.textContent.trim() && button.getAttribute('aria-label') !== name)
        button.setAttribute('aria-label', name);
    }
  };
  fix();
  new MutationObserver(fix).observe(document.body, {
    subtree: true,
    childList: true,
    characterData: true,
    attributeFilter: ['href', 'aria-label'],
  });
}

if (header) {
  setUpMenu();
  setUpTheme();
  setUpSearch();
}
setUpCopyButtons();
keepReferenceLinksInPage();
