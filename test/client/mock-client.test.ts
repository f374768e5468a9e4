// The generated client against the contract's Prism mock: a JSON call (Bearer), a multipart upload and a signed v2
// call (signed by scribe-client's signV2Request), each checked for the headers it sent and for a response that matches
// the generated zod schema.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { signV2Request } from '../../client/src/sign-v2-request.ts';
import { createClient } from '../../generated/client/client/index.ts';
import { calculateV2TranscriptionCost, createSyncTranscription, listModels } from '../../generated/client/sdk.gen.ts';
import {
  zCalculateV2TranscriptionCostResponse,
  zCreateSyncTranscriptionResponse,
  zListModelsResponse,
} from '../../generated/client/zod.gen.ts';
import { freePort, startProcess, type Started } from '../support/processes.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
let prism: Started;
let baseUrl: string;
const sent: Request[] = [];
const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const request = new Request(input, init);
  sent.push(request.clone());
  return fetch(request);
};

test.before(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  prism = await startProcess(
    `${root}node_modules/.bin/prism`,
    ['mock', `${root}generated/openapi.yaml`, '--host', '127.0.0.1', '--port', String(port)],
    /Prism is listening/,
  );
});

test.after(async () => {
  await prism?.stop();
});

test('JSON: listModels sends the Bearer key and gets a model list', async () => {
  const client = createClient({ baseUrl, fetch: recordingFetch, auth: () => 'sk_live_test_key' });
  const { data, response } = await listModels({ client });
  assert.is(response.status, 200);
  const request = sent.at(-1)!;
  assert.is(request.method, 'GET');
  assert.is(new URL(request.url).pathname, '/v3/models');
  assert.is(request.headers.get('authorization'), 'Bearer sk_live_test_key');
  assert.is(zListModelsResponse.parse(data).object, 'list');
});

test('JSON: without a key the mock answers 401, so the header above is what made it pass', async () => {
  const client = createClient({ baseUrl, fetch: recordingFetch });
  const { response } = await listModels({ client });
  assert.is(response.status, 401);
});

test('multipart: createSyncTranscription uploads the file as multipart/form-data', async () => {
  const client = createClient({ baseUrl, fetch: recordingFetch, auth: () => 'sk_live_test_key' });
  const audio = new Blob([new Uint8Array(3200)], { type: 'audio/wav' });
  const { data, response } = await createSyncTranscription({ client, body: { file: audio, language: 'en' } });
  assert.is(response.status, 200, JSON.stringify(data));
  const request = sent.at(-1)!;
  assert.match(request.headers.get('content-type') ?? '', /^multipart\/form-data; boundary=/);
  const form = await request.formData();
  assert.is(form.get('language'), 'en');
  assert.is((form.get('file') as Blob).size, 3200);
  const parsed = zCreateSyncTranscriptionResponse.parse(data);
  assert.is(parsed.data.mode, 'sync');
});

test('signed v2: calculateV2TranscriptionCost carries the three headers with a verifiable signature', async () => {
  const client = createClient({ baseUrl, fetch: recordingFetch });
  client.interceptors.request.use((request) =>
    signV2Request(request, { publicKey: 'pk_test_public', secret: 'test-secret' }),
  );
  const { data, response } = await calculateV2TranscriptionCost({
    client,
    body: { priority: 'queue', duration: '01:30' },
  });
  assert.is(response.status, 200, JSON.stringify(data));
  const request = sent.at(-1)!;
  const timestamp = request.headers.get('x-timestamp')!;
  assert.is(request.headers.get('x-public-key'), 'pk_test_public');
  assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 5, 'timestamp is now');
  const expected = createHmac('sha256', 'test-secret').update(`pk_test_public\n${timestamp}`).digest('hex');
  assert.is(request.headers.get('x-signature'), expected, "the interface document's canonical string");
  assert.equal(await request.json(), { priority: 'queue', duration: '01:30' });
  assert.type(zCalculateV2TranscriptionCostResponse.parse(data).cost, 'number');
});

test('signed v2: without the signed headers the mock answers 401', async () => {
  const client = createClient({ baseUrl, fetch: recordingFetch });
  const { response } = await calculateV2TranscriptionCost({ client, body: { priority: 'queue', duration: '01:30' } });
  assert.is(response.status, 401);
});

test.run();
