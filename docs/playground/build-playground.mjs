// The playground page of the docs site: bundles docs/playground/*.ts (scribe-client included) for the browser with
// esbuild into docs/site/playground.js, and writes docs/site/playground.html from playground.html with the site's
// menu and style. The sync limits the page uses to choose sync or async come from the contract's `x-limits`.
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');

function syncLimits() {
  const contract = JSON.parse(readFileSync(join(root, 'generated/openapi.json'), 'utf8'));
  for (const item of Object.values(contract.paths))
    for (const operation of Object.values(item))
      if (operation?.operationId === 'createSyncTranscription') {
        const limits = operation['x-limits'] ?? {};
        if (typeof limits.max_file_bytes !== 'number' || typeof limits.max_duration_seconds !== 'number')
          throw new Error('createSyncTranscription has no x-limits.max_file_bytes / max_duration_seconds');
        return limits;
      }
  throw new Error('the contract has no createSyncTranscription');
}

/**
 * `menu(prefix, current)` is the site's header and menu (it opens the layout that playground.html closes after its
 * main), `head` what the site adds to every page's head, `style` the site's stylesheet (scripts/docs/).
 */
export async function buildPlayground(site, { menu, head = '', style, externalLoad }) {
  const limits = syncLimits();
  await build({
    entryPoints: [join(here, 'main.ts')],
    outfile: join(site, 'playground.js'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    define: {
      SYNC_MAX_BYTES: String(limits.max_file_bytes),
      SYNC_MAX_SECONDS: String(limits.max_duration_seconds),
    },
  });
  const html = readFileSync(join(here, 'playground.html'), 'utf8')
    .replace('/*style*/', () => style)
    .replace('<!--head-->', () => head)
    .replace('<!--/layout-->', () => '</div>')
    .replace('<!--menu-->', () => menu('', 'playground'));
  const match = html.match(externalLoad);
  if (match) throw new Error(`playground.html loads a remote resource: ${match[0]}`);
  writeFileSync(join(site, 'playground.html'), html);
  return 'playground.html';
}
