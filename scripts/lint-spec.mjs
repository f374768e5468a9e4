// `npm run lint:spec`: Redocly lint of both documents (rules in redocly.yaml) and validation of the AsyncAPI document
// by @asyncapi/parser, and no schema or operation named like a client generator's own runtime
// (scripts/generator-reserved-names.mjs). Fails on any error or warning.
import { Parser, fromFile } from '@asyncapi/parser';
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
