// `npm run lint:spec`: Redocly lint of both documents (rules in redocly.yaml), Spectral with the OWASP API Security
// ruleset over the bundled HTTP document (its exceptions, each with its reason, in .spectral.yaml), validation of the
// AsyncAPI document by @asyncapi/parser, and no schema or operation named like a client generator's own runtime
// (scripts/generator-reserved-names.mjs). Fails on any error or warning.
import { Parser, fromFile } from '@asyncapi/parser';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { clashes, contractNames } from './generator-reserved-names.mjs';
import { redocly, root } from './spec-tools.mjs';

let failed = false;

try {
  const output = redocly(['lint', '--format', 'stylish', '--max-problems', '1000']);
  if (/warning/i.test(output) && !/0 warnings?/i.test(output)) {
    console.error(output);
    failed = true;
  } else {
    console.log('redocly lint: http and stream documents are valid (0 errors, 0 warnings).');
  }
} catch (error) {
  console.error(error.message);
  failed = true;
}

try {
  // --fail-severity hint: a finding of any severity fails; the ruleset and its exceptions are .spectral.yaml.
  execFileSync(
    join(root, 'node_modules/.bin/spectral'),
    ['lint', 'generated/openapi.json', '--ruleset', '.spectral.yaml', '--fail-severity', 'hint', '--format', 'text'],
    { cwd: root, encoding: 'utf8', stdio: 'pipe', env: { ...process.env, NO_COLOR: '1', SCARF_ANALYTICS: 'false' } },
  );
  console.log(
    'spectral (OWASP API Security ruleset, exceptions in .spectral.yaml): generated/openapi.json has no findings.',
  );
} catch (error) {
  console.error(`spectral lint found problems:\n${error.stdout ?? ''}${error.stderr ?? error.message}`);
  failed = true;
}

const severities = ['error', 'warning', 'info', 'hint'];
const parser = new Parser();
const { document, diagnostics } = await fromFile(parser, join(root, 'asyncapi/asyncapi.yaml')).parse();
const problems = diagnostics.filter((d) => d.severity <= 1);
for (const d of problems) {
  console.error(`asyncapi ${severities[d.severity]} ${d.code} at ${d.path.join('.')}: ${d.message}`);
}
if (!document || problems.length > 0) {
  failed = true;
} else {
  console.log(`@asyncapi/parser: asyncapi/asyncapi.yaml is valid (${diagnostics.length} info/hint diagnostics).`);
}

const names = contractNames();
const clashing = clashes(names);
for (const problem of clashing) console.error(`generator names: ${problem}; rename it.`);
if (clashing.length > 0) {
  failed = true;
} else {
  console.log(
    `generator names: none of ${names.schemaNames.length} schema names and ${names.operationIds.length} operation ids is a generator's runtime name.`,
  );
}

process.exit(failed ? 1 : 0);
