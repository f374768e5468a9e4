// The hash of the Bearer secret a connection last sent (connection-secret-hash.ts): the same as hashing the secret,
// recomputed when the secret changes; and over one keep-alive connection, two keys of different accounts each
// authenticate as their own account and a key revoked between two requests is refused at once.
import { Agent, request } from 'node:http';
import { Socket } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hashApiKeySecret } from '../secrets/api-key-hash.ts';
import { useHarness } from '../test-support/harness.ts';
import { connectionSecretHash } from './connection-secret-hash.ts';

const unit = suite('connection secret hash');

unit('is the hash of the secret the connection sent, recomputed when the secret changes', () => {
  const socket = new Socket();
  const other = new Socket();
  assert.is(connectionSecretHash(socket, 'sk_live_one'), hashApiKeySecret('sk_live_one'));
  assert.is(connectionSecretHash(socket, 'sk_live_one'), hashApiKeySecret('sk_live_one'));
  assert.is(connectionSecretHash(other, 'sk_live_two'), hashApiKeySecret('sk_live_two'));
  assert.is(connectionSecretHash(socket, 'sk_live_two'), hashApiKeySecret('sk_live_two'));
  assert.is(connectionSecretHash(socket, 'sk_live_one'), hashApiKeySecret('sk_live_one'));
});

unit.run();

const http = suite('connection secret hash over one keep-alive connection');
const harness = useHarness(http, 'sqlite');

http('each key is its own account; a key revoked between two requests is refused at once', async () => {
  const h = harness();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = (apiKey: string, path: string) =>
    new Promise<{ status: number; body: string; reused: boolean }>((resolve, reject) => {
      const req = request(`${h.baseUrl}${path}`, { agent, headers: { Authorization: `Bearer ${apiKey}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body, reused: req.reusedSocket }));
      });
      req.on('error', reject);
      req.end();
    });
  const one = await h.provision({ balance: 1 });
  const two = await h.provision({ balance: 1 });
  const second = await h.v3(one.apiKey, 'POST', '/v3/keys/create', { json: { name: 'second' } });
  assert.is(second.status, 201, second.text);

  const first = await get(one.apiKey, '/v3/keys/list');
  assert.is(first.status, 200, first.body);
  const asTwo = await get(two.apiKey, '/v3/keys/list');
  assert.equal([asTwo.status, asTwo.reused], [200, true]);
  // Each key lists its own account's keys: one has two, two has one.
  assert.equal([JSON.parse(first.body).data.length, JSON.parse(asTwo.body).data.length], [2, 1]);

  const revoked = await h.v3(
    second.body.secret,
    'POST',
    `/v3/keys/revoke/${JSON.parse(first.body).data.find((k: { name: string }) => k.name !== 'second').id}`,
  );
  assert.is(revoked.status, 200, revoked.text);
  const again = await get(one.apiKey, '/v3/keys/list');
  assert.equal([again.status, again.reused], [401, true]);
  assert.is((await get(second.body.secret, '/v3/keys/list')).status, 200);
  agent.destroy();
});

http.run();
