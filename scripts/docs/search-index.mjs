// The site's one search, built when the site is built: MiniSearch indexes every guide section, every HTTP operation,
// every streaming operation and the changelog, and its serialised index is written beside the pages. The browser
// loads MiniSearch's own bundle and that index, so searching needs no server and no network.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import MiniSearch from 'minisearch';

const require = createRequire(import.meta.url);

/** Fields and options the browser must repeat when it loads the index (site-client.js reads them from the file). */
export const searchOptions = {
  fields: ['title', 'text'],
  storeFields: ['title', 'kind', 'url'],
  searchOptions: { boost: { title: 3 }, prefix: true, fuzzy: 0.2 },
};

/** `documents`: { url, title, kind, text }, `url` relative to the site's root. */
export function writeSearchIndex(site, documents) {
  const index = new MiniSearch({ fields: searchOptions.fields, storeFields: searchOptions.storeFields });
  index.addAll(documents.map((d, id) => ({ id, ...d })));
  mkdirSync(join(site, 'assets'), { recursive: true });
  writeFileSync(join(site, 'assets/search-index.json'), JSON.stringify({ options: searchOptions, index }));
  // The package exports no path to its browser bundle; it sits beside the CommonJS build (dist/cjs → dist/umd).
  const bundle = join(dirname(require.resolve('minisearch')), '../umd/index.js');
  copyFileSync(bundle, join(site, 'assets/minisearch.js'));
  return documents.length;
}

const plain = (markdown = '') =>
  markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_#>|]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Search documents for the HTTP operations (their Redoc routes) and the AsyncAPI operations. */
export function referenceDocuments(contract, operations, asyncContract, referenceRoute) {
  const documents = operations.map((op) => {
    const operation = contract.paths[op.path][op.method];
    return {
      url: referenceRoute(op),
      title: op.summary || op.operationId,
      kind: `HTTP API · ${op.method.toUpperCase()} ${op.path}`,
      text: `${op.operationId} ${op.path} ${op.tag} ${plain(operation.description)}`,
    };
  });
  for (const [id, operation] of Object.entries(asyncContract.operations ?? {})) {
    const key = operation.channel.$ref.split('/').pop();
    documents.push({
      url: `streaming.html#/channels/${String(key).toLowerCase()}/operations/${id.toLowerCase()}`,
      title: operation.summary ?? id,
      kind: 'Streaming API',
      text: `${id} ${plain(operation.description)}`,
    });
  }
  return documents;
}
