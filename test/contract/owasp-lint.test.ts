// The OWASP API lint of `npm run lint:spec` (Spectral, exceptions in .spectral.yaml): the bundled contract has no
// finding, and the request-bounds rule that narrows the ruleset's size rules to requests still finds an unbounded
// request string, array and integer (a document that lacks them), but not a response's or an example's.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../../', import.meta.url).pathname;

async function spectral(document: string): Promise<{ code: string; path: string[] }[]> {
  const args = ['lint', document, '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--quiet'];
  const run = promisify(execFile)(join(root, 'node_modules/.bin/spectral'), args, { cwd: root });
  const { stdout } = await run.catch((failed: { stdout: string }) => failed);
  return JSON.parse(stdout);
}

test('the bundled contract has no finding', async () => {
  assert.equal(await spectral('generated/openapi.json'), []);
});

test('an unbounded request string, array and integer are found; a response and an example are not', async () => {
  const unbounded = {
    type: 'object',
    properties: {
      text: { type: 'string' },
      tags: { type: 'array', maxItems: 2, items: { type: 'string', maxLength: 9 } },
      n: { type: 'integer', minimum: 0 },
      list: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 9 } },
    },
    examples: [{ schema: { type: 'string' } }],
  };
  const document = {
    openapi: '3.1.0',
    info: { title: 't', version: '1', description: 'd', license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: 'https://api.example.com', description: 'production', 'x-internal': false }],
    paths: {
      '/things': {
        post: {
          requestBody: { content: { 'application/json': { schema: unbounded } } },
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'string' } } } } },
        },
      },
    },
  };
  const file = join(mkdtempSync(join(tmpdir(), 'scribe-owasp-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const bounds = (await spectral(file))
    .filter((finding) => finding.code === 'scribe-request-bounds')
    .map((finding) => finding.path.slice(-2).join('.'))
    .sort();
  assert.equal(bounds, ['properties.list', 'properties.n', 'properties.text']);
});

test.run();
