// One account's dead receiver does not delay another account's webhooks. At the default settings (4 deliveries in
// flight per process, a 15 s time limit), 100 test events at a receiver that accepts and never answers hold at most
// SCRIBE_WEBHOOK_PER_ENDPOINT (2) slots, and the endpoint's other deliveries back off after a timeout; another
// account's event arrives within 2 s of being sent. Before, deliveries were taken oldest first across accounts and
// the hanging receiver held every slot for 15 s per attempt.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness } from '../test-support/harness.ts';
import { startReceiver, until, type Receiver } from './test-receiver.ts';

const HANGING_EVENTS = 100;

for (const kind of databaseKinds) {
  const test = suite(`webhook isolation (${kind})`);
  const harness = useHarness(test, kind, {
    env: { SCRIBE_URL_ALLOW_HOSTS: '127.0.0.1', SCRIBE_RATE_LIMIT_RPS: '1000' },
  });
  let hanging: Receiver;
  let healthy: Receiver;

  test.before(async () => {
    hanging = await startReceiver();
    hanging.answer = () => 'hang';
    healthy = await startReceiver();
  });

  test.after(async () => {
    await hanging.close();
    await healthy.close();
  });

  test('100 events hanging at one account’s receiver: another account’s event arrives within 2 s', async () => {
    const h = harness();
    const [stuck, other] = [await h.provision(), await h.provision()];
    const endpoint = async (apiKey: string, url: string) =>
      (
        await h.v3(apiKey, 'POST', '/v3/webhooks/create', {
          json: { url: `${url}/hook`, events: ['transcription.completed'] },
        })
      ).body.id as string;
    const stuckId = await endpoint(stuck.apiKey, hanging.url);
    const otherId = await endpoint(other.apiKey, healthy.url);
    for (let i = 0; i < HANGING_EVENTS; i++) {
      const sent = await h.v3(stuck.apiKey, 'POST', `/v3/webhooks/test/${stuckId}`);
      assert.ok(sent.status < 300, sent.text);
    }
    await until('the hanging receiver holds its attempts', () => hanging.received.length >= 1 || undefined);
    const began = Date.now();
    const sent = await h.v3(other.apiKey, 'POST', `/v3/webhooks/test/${otherId}`);
    assert.ok(sent.status < 300, sent.text);
    const arrived = await until('the other account’s event arrives', () => healthy.received[0], 10_000);
    const waited = arrived.at - began;
    assert.ok(waited < 2000, `the other account's event arrived after ${waited} ms`);
    assert.ok(hanging.received.length <= 2, `${hanging.received.length} attempts in flight at the hanging receiver`);
  });

  test.run();
}
