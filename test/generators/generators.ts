// The client generators of the matrix: how each is run on the bundled contract (the settings the guide
// docs/guides/client-generators.md documents), which scenario drives its output, and its one documented per-call
// option. Each generates into `client/` of a work folder whose `node_modules` is this folder's.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToEnd, type Ran } from '../support/processes.ts';

const here = new URL('./', import.meta.url).pathname;
const root = new URL('../../', import.meta.url).pathname;
/** The bundled contract; SCRIBE_GENERATOR_CONTRACT names another (an older version, to see which cells a change flips). */
export const CONTRACT = process.env.SCRIBE_GENERATOR_CONTRACT ?? join(root, 'generated/openapi.json');
const bin = (name: string) => join(here, 'node_modules/.bin', name);

export interface Generator {
  /** Short id: the scenario file is `scenarios/<id>.scenario.mts`. */
  id: string;
  /** What the matrix prints. */
  label: string;
  /** The one per-call option the scenario may use where the call fails as generated. */
  option: string;
  /** Runs the generator in `work`; `baseUrl` is the server's, for a generator that builds it into its output. */
  generate(work: string, baseUrl: string): Promise<Ran>;
}

const run = (command: string, args: string[], cwd: string) =>
  runToEnd(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, timeoutMs: 180_000 });

/** orval reads its settings from a config file; the one written here is the one the guide shows. */
function orval(client: 'fetch' | 'axios') {
  return (work: string, baseUrl: string) => {
    const output =
      client === 'fetch'
        ? // The fetch client calls relative URLs unless a base URL is generated in (Node's fetch needs one).
          `{ target: './client/api.ts', client: 'fetch', mode: 'single', baseUrl: ${JSON.stringify(baseUrl)} }`
        : `{ target: './client/api.ts', client: 'axios', mode: 'single' }`;
    writeFileSync(
      join(work, 'orval.config.ts'),
      `export default { scribe: { input: { target: ${JSON.stringify(CONTRACT)} }, output: ${output} } };\n`,
    );
    return run(bin('orval'), ['--config', 'orval.config.ts'], work);
  };
}

export const GENERATORS: Generator[] = [
  {
    id: 'openapi-fetch',
    label: 'openapi-typescript 7.13.0 + openapi-fetch 0.17.0',
    option: "parseAs ('text', 'stream', 'blob')",
    generate: (work) =>
      run(
        bin('openapi-typescript'),
        // Defaults do not make request properties required (they stay optional, as the contract means them).
        [CONTRACT, '--output', 'client/schema.d.ts', '--root-types', '--default-non-nullable', 'false'],
        work,
      ),
  },
  {
    id: 'orval-fetch',
    label: 'orval 7.13.2 (fetch)',
    option: "a Content-Type header in the call's RequestInit",
    generate: orval('fetch'),
  },
  {
    id: 'orval-axios',
    label: 'orval 7.13.2 (axios 1.18.1)',
    option: "AxiosRequestConfig responseType ('text', 'arraybuffer')",
    generate: orval('axios'),
  },
  {
    id: 'kubb',
    label: 'kubb 4.39.3 (plugin-client, axios 1.18.1)',
    option: "RequestConfig responseType ('text', 'arraybuffer')",
    generate: (work) => {
      writeFileSync(
        join(work, 'kubb.config.ts'),
        [
          "import { defineConfig } from '@kubb/core';",
          "import { pluginClient } from '@kubb/plugin-client';",
          "import { pluginOas } from '@kubb/plugin-oas';",
          "import { pluginTs } from '@kubb/plugin-ts';",
          'export default defineConfig({',
          `  input: { path: ${JSON.stringify(CONTRACT)} },`,
          // No formatter or linter hook: the output is checked as generated.
          "  output: { path: './client', clean: true, format: false, lint: false },",
          '  plugins: [pluginOas({ generators: [] }), pluginTs(), pluginClient()],',
          '});',
          '',
        ].join('\n'),
      );
      return run(bin('kubb'), ['generate', '--config', 'kubb.config.ts'], work);
    },
  },
  {
    id: 'hey-api',
    label: '@hey-api/openapi-ts 0.95.0 (client-fetch)',
    option: "parseAs ('text', 'stream', 'blob')",
    // The root devDependency, with the plugins scripts/generate.mjs uses for client/ (less the zod and schema ones).
    generate: (work) =>
      run(
        join(root, 'node_modules/.bin/openapi-ts'),
        [
          '-i',
          CONTRACT,
          '-o',
          'client',
          '-c',
          '@hey-api/client-fetch',
          '-p',
          '@hey-api/typescript',
          '@hey-api/sdk',
          '-s',
        ],
        work,
      ),
  },
];
