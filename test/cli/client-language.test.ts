// The client CLI's default language: without --language, `transcribe` and `stream` send what the server's
// transcription model accepts (the reference server's engine: English, not the API's default `ru`) and say on stderr
// which language they chose; a named language is sent as given. Against a real server with the real engine.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward, GOFORWARD_RAW } from '../../server/src/test-support/audio.ts';
import { useHarness } from '../../server/src/test-support/harness.ts';

const run = promisify(execFile);
const cli = new URL('../../client/src/cli/main.ts', import.meta.url).pathname;
const test = suite('scribe-client: the language it sends');
const harness = useHarness(test, 'sqlite');

async function scribeClient(args: string[], apiKey: string) {
  return run(process.execPath, ['--import', 'tsx', cli, ...args], {
    env: { ...process.env, SCRIBE_API_KEY: apiKey, SCRIBE_BASE_URL: harness().baseUrl },
    timeout: 120_000,
  }).catch((error: { code: number; stdout: string; stderr: string }) => ({ ...error, failed: true }));
}

test('transcribe without --language uses the server model language and says so', async () => {
  const { apiKey } = await harness().provision({ balance: 100 });
  const out = await scribeClient(['transcribe', goforward('wav')], apiKey);
  assert.not.ok('failed' in out, out.stderr);
  assert.is(out.stdout.trim(), 'go forward ten meters');
  assert.match(out.stderr, /^language: en \(service-transcribe accepts en; --language to choose another\)\n/);
});

test('stream without --language agrees with transcribe', async () => {
  const { apiKey } = await harness().provision({ balance: 100 });
  const out = await scribeClient(['stream', GOFORWARD_RAW, '--fast'], apiKey);
  assert.not.ok('failed' in out, out.stderr);
  assert.match(out.stdout, /\] go forward [a-z ]+\n/);
  assert.match(out.stderr, /^language: en \(service-transcribe accepts en; /);
});

test('a named language is sent as given, and the refusal says what the server accepts', async () => {
  const { apiKey } = await harness().provision({ balance: 100 });
  const out = await scribeClient(['transcribe', goforward('wav'), '--language', 'ru'], apiKey);
  assert.ok('failed' in out, 'ru is refused by the English engine');
  assert.not.match(out.stderr, /^language:/);
  assert.match(out.stderr, /400 unsupported_language.*Supported: en\. .*language=en/);
});

test.run();
