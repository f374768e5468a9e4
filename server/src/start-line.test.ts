// The start line a person reads: the address, the docs address (or how to build the docs), how to stop.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { browsableOrigin, startLine } from './start-line.ts';

const test = suite('the start line');

test('names the address and the docs address', () => {
  const line = startLine({ host: '127.0.0.1', port: 8080, database: 'SQLite in ./data', role: 'all', docsBuilt: true });
  assert.is(
    line,
    'Scribe is listening on http://127.0.0.1:8080 (SQLite in ./data, role all). ' +
      'Docs: http://127.0.0.1:8080/docs/. Ctrl+C stops it.\n',
  );
});

test('says how to build the docs when they are not built', () => {
  const line = startLine({ host: '127.0.0.1', port: 9000, database: 'PostgreSQL', role: 'api', docsBuilt: false });
  assert.match(line, /Docs: http:\/\/127\.0\.0\.1:9000\/docs\/ \(build them first: npm run docs\)\./);
});

test('a wildcard host is shown as the loopback address a browser here can open', () => {
  assert.is(browsableOrigin('0.0.0.0', 8080), 'http://127.0.0.1:8080');
  assert.is(browsableOrigin('::', 8080), 'http://[::1]:8080');
  assert.is(browsableOrigin('192.0.2.7', 80), 'http://192.0.2.7:80');
});

test.run();
