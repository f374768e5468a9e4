// Webhook delivery through the API on SQLite and PostgreSQL, to real receivers on 127.0.0.1 (allowed for this
// server) with a short retry schedule: retries keep the webhook-id and sign every attempt with the secret shown at
// creation; 410 disables the endpoint and ends its pending deliveries; test events (also to a disabled endpoint); an
// address refused at delivery time; real transcriptions that complete or fail emit exactly one event per subscribed
// endpoint; and deliveries survive a restart of the server on the same database.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { goforward, textAsWav } from '../test-support/audio.ts';
import { checkResponse } from '../test-support/contract-check.ts';
import { databaseKinds, freshDatabase, useHarness, type Harness, type Reply } from '../test-support/harness.ts';
import { NIL_UUID } from './events.ts';
import {
  contractProblems,
  sleep,
  startReceiver,
  until,
  verifyStandardWebhook,
  type Received,
} from './test-receiver.ts';

const SCHEDULE = [0.5, 0.5, 0.5];
const ENV = {
  SCRIBE_URL_ALLOW_HOSTS: '127.0.0.1',
  SCRIBE_WEBHOOK_SCHEDULE: SCHEDULE.join(','),
  SCRIBE_RATE_LIMIT_RPS: '1000',
};
const BOTH = ['transcription.completed', 'transcription.failed'];

type V3 = (method: string, path: string, options?: { json?: unknown; form?: FormData }) => Promise<Reply>;

async function register(v3: V3, url: string, events: string[] = BOTH) {
  const created = await v3('POST', '/v3/webhooks/create', { json: { url, events } });
  assert.is(created.status, 201, created.text);
  return created.body as { id: string; secret: string };
}

async function deliveriesOf(v3: V3, webhookId: string) {
  const reply = await v3('GET', `/v3/webhooks/deliveries/${webhookId}`);
  assert.is(reply.status, 200, reply.text);
  return reply.body.data as {
    id: string;
    event_id: string;
    event_type: string;
    status: string;
    attempts: number;
    response_status: number | null;
    last_error: string | null;
    next_attempt_at: string | null;
    completed_at: string | null;
  }[];
}

/** A received request is a conforming, correctly signed delivery of `secret`; returns its parsed body. */
async function checkDelivery(request: Received, secret: string) {
  assert.equal(contractProblems(request), [], 'the request follows the contract');
  assert.ok(await verifyStandardWebhook(secret, request.headers, request.body), 'the signature verifies');
  const event = JSON.parse(request.body);
  assert.is(request.headers['webhook-id'], event.id, 'webhook-id is the event id');
  return event;
}

const v3Of =
  (h: Harness, apiKey: string): V3 =>
  (method, path, options = {}) =>
    h.v3(apiKey, method, path, options);

for (const kind of databaseKinds) {
  const test = suite(`webhook delivery (${kind})`);
  const harness = useHarness(test, kind, { env: ENV });

  test('fails twice (500), then 200: three attempts, one webhook-id, valid signatures, all in the log', async () => {
    const h = harness();
    const receiver = await startReceiver();
    try {
      receiver.answer = (_request, index) => (index < 2 ? 500 : 200);
      const v3 = v3Of(h, (await h.provision({ balance: 1 })).apiKey);
      const webhook = await register(v3, `${receiver.url}/hook`);
      const enqueued = await v3('POST', `/v3/webhooks/test/${webhook.id}`);
      assert.is(enqueued.status, 202, enqueued.text);
      assert.equal(
        [enqueued.body.webhook_id, enqueued.body.event_type, enqueued.body.status, enqueued.body.attempts],
        [webhook.id, 'transcription.completed', 'pending', 0],
      );
      assert.equal([enqueued.body.response_status, enqueued.body.completed_at], [null, null]);
      assert.ok(enqueued.body.next_attempt_at);

      const [delivery] = await until('the delivery to succeed', async () => {
        const list = await deliveriesOf(v3, webhook.id);
        return list[0]?.status === 'succeeded' ? list : undefined;
      });
      assert.is(receiver.received.length, 3);
      const events = await Promise.all(receiver.received.map((request) => checkDelivery(request, webhook.secret)));
      assert.equal(
        receiver.received.map((r) => r.headers['webhook-id']),
        Array(3).fill(enqueued.body.event_id),
      );
      assert.is(new Set(receiver.received.map((r) => r.body)).size, 1, 'every attempt sends the same body');
      assert.equal(events[0], {
        id: enqueued.body.event_id,
        type: 'transcription.completed',
        created_at: events[0].created_at,
        data: { id: NIL_UUID, status: 'completed' },
      });
      for (let i = 1; i < 3; i += 1) {
        const gap = receiver.received[i]!.at - receiver.received[i - 1]!.at;
        assert.ok(gap >= SCHEDULE[i - 1]! * 1000 - 50, `attempt ${i + 1} came ${gap} ms after the previous one`);
      }
      assert.equal(
        {
          id: delivery!.id,
          attempts: delivery!.attempts,
          response_status: delivery!.response_status,
          last_error: delivery!.last_error,
          next_attempt_at: delivery!.next_attempt_at,
        },
        { id: enqueued.body.id, attempts: 3, response_status: 200, last_error: null, next_attempt_at: null },
      );
      assert.ok(delivery!.completed_at);
      const attempts = await h.db('webhook_attempts').where({ delivery_id: delivery!.id }).orderBy('number');
      assert.equal(
        attempts.map((a: { number: number; response_status: number; error: string | null }) => [
          a.number,
          a.response_status,
          a.error,
        ]),
        [
          [1, 500, 'The receiver answered 500.'],
          [2, 500, 'The receiver answered 500.'],
          [3, 200, null],
        ],
      );
      for (const a of attempts) assert.ok(Number(a.duration_ms) >= 0);
    } finally {
      await receiver.close();
    }
  });

  test('every attempt failing: the delivery ends failed after the schedule with the last error', async () => {
    const h = harness();
    const receiver = await startReceiver();
    try {
      receiver.answer = () => 503;
      const v3 = v3Of(h, (await h.provision({ balance: 1 })).apiKey);
      const webhook = await register(v3, `${receiver.url}/hook`, ['transcription.failed']);
      const enqueued = await v3('POST', `/v3/webhooks/test/${webhook.id}`);
      assert.is(enqueued.body.event_type, 'transcription.failed');
      const [delivery] = await until('the delivery to fail', async () => {
        const list = await deliveriesOf(v3, webhook.id);
        return list[0]?.status === 'failed' ? list : undefined;
      });
      assert.equal(
        [delivery!.attempts, delivery!.response_status, delivery!.last_error, delivery!.next_attempt_at],
        [SCHEDULE.length + 1, 503, 'The receiver answered 503.', null],
      );
      await sleep(1000);
      assert.is(receiver.received.length, SCHEDULE.length + 1);
      const event = await checkDelivery(receiver.received[0]!, webhook.secret);
      assert.equal(event.data, {
        id: NIL_UUID,
        status: 'failed',
        error: {
          type: 'server_error',
          code: 'task_failed',
          message: 'Recognition failed; the reservation was released and nothing was charged.',
          param: null,
        },
      });
      // The endpoint itself stays enabled: only 410 disables it.
      const list = await v3('GET', '/v3/webhooks/list');
      assert.is(list.body.data[0].enabled, true);
    } finally {
      await receiver.close();
    }
  });

  test('410 disables the endpoint and ends its pending deliveries; a test is still sent to it; re-enable', async () => {
    const h = harness();
    const receiver = await startReceiver();
    try {
      let first: string | undefined;
      receiver.answer = (request) => {
        first ??= String(request.headers['webhook-id']);
        return request.headers['webhook-id'] === first ? 500 : 410;
      };
      const v3 = v3Of(h, (await h.provision({ balance: 1 })).apiKey);
      const webhook = await register(v3, `${receiver.url}/hook`);
      const retrying = (await v3('POST', `/v3/webhooks/test/${webhook.id}`)).body;
      // Its retry is moved an hour out as soon as the 500 is recorded, so that it is waiting, not in flight, when the
      // 410 comes however slowly the machine runs (due 0.5 s later, a loaded CI run sent it alongside the 410).
      await until(
        'the 500 recorded',
        async () =>
          (await h
            .db('webhook_deliveries')
            .where({ id: retrying.id, status: 'pending', attempts: 1, lease_owner: null })
            .update({ next_attempt_at: new Date(Date.now() + 3_600_000).toISOString() })) === 1,
      );
      assert.is(receiver.received.length, 1);
      const goneTest = (await v3('POST', `/v3/webhooks/test/${webhook.id}`)).body;
      await until('the 410', async () => (await deliveriesOf(v3, webhook.id)).every((d) => d.status === 'failed'));

      const endpoint = (await v3('GET', '/v3/webhooks/list')).body.data[0];
      assert.equal([endpoint.enabled, endpoint.disabled_reason], [false, 'The receiver answered 410 Gone.']);
      const byId = new Map((await deliveriesOf(v3, webhook.id)).map((d) => [d.id, d]));
      const gone = byId.get(goneTest.id)!;
      assert.equal(
        [gone.status, gone.attempts, gone.response_status, gone.last_error],
        ['failed', 1, 410, 'The receiver answered 410 Gone; the endpoint was disabled.'],
      );
      const stopped = byId.get(retrying.id)!;
      assert.equal([stopped.status, stopped.attempts, stopped.next_attempt_at], ['failed', 1, null]);
      assert.match(stopped.last_error!, /410 Gone/);
      await sleep(SCHEDULE[0]! * 1000 * 3);
      assert.is(receiver.received.length, 2, 'no attempt after the 410');

      // A disabled endpoint gets no events, but a test is sent to it (to check the receiver before re-enabling).
      receiver.answer = () => 204;
      const probe = (await v3('POST', `/v3/webhooks/test/${webhook.id}`)).body;
      await until('the test to a disabled endpoint', async () =>
        (await deliveriesOf(v3, webhook.id)).some((d) => d.id === probe.id && d.status === 'succeeded'),
      );
      await checkDelivery(receiver.received.at(-1)!, webhook.secret);
      const reenabled = await v3('POST', `/v3/webhooks/update/${webhook.id}`, { json: { enabled: true } });
      assert.equal([reenabled.body.enabled, reenabled.body.disabled_reason], [true, null]);
    } finally {
      await receiver.close();
    }
  });

  test('an address refused at delivery time is a failed attempt with a clear error; nothing is sent', async () => {
    const h = harness();
    const receiver = await startReceiver();
    try {
      const v3 = v3Of(h, (await h.provision({ balance: 1 })).apiKey);
      const webhook = await register(v3, `${receiver.url}/hook`);
      // The registration was fine; the address the URL names is not any more (as after a DNS change).
      await h.db('webhooks').where({ id: webhook.id }).update({ url: 'http://169.254.169.254/latest/meta-data/' });
      await v3('POST', `/v3/webhooks/test/${webhook.id}`);
      const [delivery] = await until('the refusal', async () => {
        const list = await deliveriesOf(v3, webhook.id);
        return list[0] && list[0].attempts >= 1 ? list : undefined;
      });
      assert.equal([delivery!.response_status, delivery!.status], [null, 'pending']);
      assert.match(
        delivery!.last_error!,
        /^The URL was refused before sending: The host 169\.254\.169\.254 is not allowed: .*private, local or reserved/,
      );
      // The owner learns the host was refused, not which range its address is in (no oracle for internal DNS).
      assert.not.match(delivery!.last_error!, /link-local/);
      assert.is(receiver.received.length, 0);
    } finally {
      await receiver.close();
    }
  });

  test('owner disables the endpoint: pending event deliveries end failed', async () => {
    const h = harness();
    const receiver = await startReceiver();
    try {
      receiver.answer = () => 500;
      const account = await h.provision({ balance: 1 });
      const v3 = v3Of(h, account.apiKey);
      const webhook = await register(v3, `${receiver.url}/hook`);
      // A real event's pending delivery (inserted as onFinal does, due in an hour).
      const at = new Date().toISOString();
      const later = new Date(Date.now() + 3_600_000).toISOString();
      const deliveryId = crypto.randomUUID();
      await h.db('webhook_deliveries').insert({
        id: deliveryId,
        webhook_id: webhook.id,
        event_id: crypto.randomUUID(),
        event_type: 'transcription.completed',
        task_id: crypto.randomUUID(),
        test: false,
        payload: '{}',
        status: 'pending',
        attempts: 1,
        response_status: 500,
        last_error: 'The receiver answered 500.',
        next_attempt_at: later,
        created_at: at,
      });
      await v3('POST', `/v3/webhooks/update/${webhook.id}`, { json: { enabled: false } });
      const [delivery] = await deliveriesOf(v3, webhook.id);
      assert.equal(
        [delivery!.id, delivery!.status, delivery!.last_error, delivery!.next_attempt_at],
        [deliveryId, 'failed', 'Not sent: the endpoint was disabled.', null],
      );
      assert.is(receiver.received.length, 0);
    } finally {
      await receiver.close();
    }
  });

  test('the delivery log pages newest first', async () => {
    const h = harness();
    const receiver = await startReceiver();
    try {
      const v3 = v3Of(h, (await h.provision({ balance: 1 })).apiKey);
      const webhook = await register(v3, `${receiver.url}/hook`);
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await v3('POST', `/v3/webhooks/test/${webhook.id}`)).body.id);
      const first = await v3('GET', `/v3/webhooks/deliveries/${webhook.id}?limit=2`);
      assert.equal([first.body.data.length, first.body.has_more], [2, true]);
      const second = await v3('GET', `/v3/webhooks/deliveries/${webhook.id}?limit=2&after=${first.body.next_cursor}`);
      assert.equal([second.body.data.length, second.body.has_more, second.body.next_cursor], [1, false, null]);
      const seen = [...first.body.data, ...second.body.data] as { id: string; created_at: string }[];
      assert.equal(new Set(seen.map((d) => d.id)), new Set(ids));
      for (let i = 1; i < seen.length; i += 1) assert.ok(seen[i - 1]!.created_at >= seen[i]!.created_at);
      await until('all three delivered', () => receiver.received.length === 3);
    } finally {
      await receiver.close();
    }
  });

  test('a real transcription: one transcription.completed per subscribed endpoint; a failed one: transcription.failed with its error', async () => {
    const h = harness();
    const receiver = await startReceiver();
    try {
      const account = await h.provision({ balance: 10 });
      const v3 = v3Of(h, account.apiKey);
      const completedOnly = await register(v3, `${receiver.url}/completed`, ['transcription.completed']);
      const both = await register(v3, `${receiver.url}/both`, BOTH);
      const failedOnly = await register(v3, `${receiver.url}/failed`, ['transcription.failed']);
      const disabled = await register(v3, `${receiver.url}/disabled`, BOTH);
      await v3('POST', `/v3/webhooks/update/${disabled.id}`, { json: { enabled: false } });
      const other = v3Of(h, (await h.provision({ balance: 1 })).apiKey);
      await register(other, `${receiver.url}/other-account`, BOTH);

      const form = new FormData();
      form.set('language', 'en');
      form.set('file', new Blob([readFileSync(goforward('wav'))]), basename(goforward('wav')));
      const created = await v3('POST', '/v3/transcriptions/sync/create', { form });
      assert.is(created.status, 200, created.text);
      const taskId = created.body.data.id as string;
      await until(
        'the completed events',
        () => receiver.at('/completed').length >= 1 && receiver.at('/both').length >= 1,
        60_000,
      );
      const status = await v3('GET', `/v3/transcriptions/status/${taskId}`);
      assert.is(status.body.data.status, 'completed');
      await sleep(1000);
      assert.equal(
        receiver.received.map((r) => r.path).sort(),
        ['/both', '/completed'],
        'exactly one event to each subscribed endpoint of the account',
      );
      const [toCompleted, toBoth] = [receiver.at('/completed')[0]!, receiver.at('/both')[0]!];
      const event = await checkDelivery(toCompleted, completedOnly.secret);
      assert.equal(await checkDelivery(toBoth, both.secret), event, 'one event, the same id to every endpoint');
      assert.is(toBoth.headers['webhook-signature'] === toCompleted.headers['webhook-signature'], false);
      assert.equal(
        { type: event.type, data: event.data, created_at: event.created_at },
        {
          type: 'transcription.completed',
          data: { id: taskId, status: 'completed' },
          created_at: status.body.data.completed_at,
        },
      );

      const failingForm = new FormData();
      failingForm.set('language', 'en');
      failingForm.set('file', new Blob([readFileSync(textAsWav())]), 'notes.wav');
      const failing = await v3('POST', '/v3/transcriptions/async/create', { form: failingForm });
      assert.is(failing.status, 202, failing.text);
      const failedId = failing.body.transcription_id as string;
      await until('the failed events', () => receiver.at('/failed').length >= 1 && receiver.at('/both').length >= 2);
      const failedTask = (await v3('GET', `/v3/transcriptions/status/${failedId}`)).body.data;
      assert.is(failedTask.status, 'failed');
      await sleep(1000);
      assert.is(receiver.at('/failed').length, 1);
      assert.is(receiver.at('/both').length, 2);
      assert.is(receiver.at('/completed').length, 1);
      assert.is(receiver.at('/disabled').length + receiver.at('/other-account').length, 0);
      const failedEvent = await checkDelivery(receiver.at('/failed')[0]!, failedOnly.secret);
      assert.equal(await checkDelivery(receiver.at('/both')[1]!, both.secret), failedEvent);
      assert.equal(failedEvent.data, { id: failedId, status: 'failed', error: failedTask.error });
      assert.is(failedEvent.data.error.code, 'unsupported_format');

      const log = await deliveriesOf(v3, both.id);
      assert.equal(
        log.map((d) => [d.event_type, d.status, d.attempts, d.response_status]),
        [
          ['transcription.failed', 'succeeded', 1, 200],
          ['transcription.completed', 'succeeded', 1, 200],
        ],
      );
      assert.equal(await deliveriesOf(v3, disabled.id), []);
    } finally {
      await receiver.close();
    }
  });

  test.run();
}

interface Started {
  app: App;
  v3: (apiKey: string) => V3;
}

/** The server on an existing database (the harness always makes a fresh one). */
async function startOn(env: Record<string, string>): Promise<Started> {
  const app = await createApp(loadConfig({ NODE_ENV: 'test', ...env }));
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    app,
    v3:
      (apiKey) =>
      async (method, path, options = {}) => {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${apiKey}`,
            ...(options.json === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
          body: options.json === undefined ? undefined : JSON.stringify(options.json),
        });
        const text = await response.text();
        const reply: Reply = { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
        checkResponse({ method, path: new URL(path, base).pathname }, reply);
        return reply;
      },
  };
}

for (const kind of databaseKinds) {
  const test = suite(`webhook delivery across a restart (${kind})`);

  test('a delivery enqueued before the server stops is sent by the next server, with the same webhook-id', async () => {
    const database = await freshDatabase(kind);
    const env = {
      ...database.env,
      ...ENV,
      SCRIBE_WEBHOOK_SCHEDULE: '0.5,0.5,0.5,0.5,0.5',
      SCRIBE_SECRET_KEY: randomBytes(32).toString('hex'),
    };
    const receiver = await startReceiver();
    await receiver.close(); // down: the first server's attempts are refused
    let first: Started | undefined;
    let second: Started | undefined;
    try {
      first = await startOn(env);
      const account = await first.app.services.accounts.create({ balance: 1 });
      const apiKey = account.api_key!;
      const webhook = await register(first.v3(apiKey), `${receiver.url}/hook`);
      const enqueued = (await first.v3(apiKey)('POST', `/v3/webhooks/test/${webhook.id}`)).body;
      const [tried] = await until('a refused first attempt', async () => {
        const list = await deliveriesOf(first!.v3(apiKey), webhook.id);
        return list[0] && list[0].attempts >= 1 ? list : undefined;
      });
      assert.is(tried!.status, 'pending');
      assert.is(tried!.last_error, 'The connection failed (ECONNREFUSED).');
      await first.app.close();
      first = undefined;

      await receiver.listen();
      second = await startOn(env);
      await until('the delivery by the second server', () => receiver.received.length >= 1);
      const [delivery] = await until('the log to show it', async () => {
        const list = await deliveriesOf(second!.v3(apiKey), webhook.id);
        return list[0]?.status === 'succeeded' ? list : undefined;
      });
      assert.is(receiver.received.length, 1);
      assert.is(receiver.received[0]!.headers['webhook-id'], enqueued.event_id);
      await checkDelivery(receiver.received[0]!, webhook.secret);
      assert.ok(delivery!.attempts >= 2, `attempts ${delivery!.attempts}`);
      assert.is(delivery!.response_status, 200);
    } finally {
      await first?.app.close();
      await second?.app.close();
      await receiver.close().catch(() => undefined);
      await database.drop();
    }
  });

  test('a task that ended while its event was not yet handed over (a crash in between) is delivered after a restart', async () => {
    const database = await freshDatabase(kind);
    const env = { ...database.env, ...ENV, SCRIBE_SECRET_KEY: randomBytes(32).toString('hex') };
    const receiver = await startReceiver();
    let server: Started | undefined;
    try {
      server = await startOn(env);
      const account = await server.app.services.accounts.create({ balance: 1 });
      const webhook = await register(server.v3(account.api_key!), `${receiver.url}/hook`);
      await server.app.close();
      server = undefined;
      // What a crash between the final state and the hand-over leaves: a completed task still flagged event_pending.
      const { openDatabase } = await import('../db/database.ts');
      const db = openDatabase(loadConfig({ NODE_ENV: 'test', ...env }));
      const taskId = randomUUID();
      const at = new Date(Date.now() - 60_000).toISOString();
      await db('transcriptions').insert({
        id: taskId,
        account_id: account.account.id,
        status: 'completed',
        mode: 'async',
        api_version: 'v3',
        priority: 'queue',
        source_type: 'upload',
        filename: 'crash.wav',
        language: 'en',
        progress: 100,
        result: JSON.stringify({ text: 'go forward ten meters', duration: 2.79, language: 'en' }),
        created_at: at,
        completed_at: at,
        event_pending: true,
      });
      await db.destroy();

      server = await startOn(env);
      await until('the swept event', () => receiver.received.length >= 1);
      const event = await checkDelivery(receiver.received[0]!, webhook.secret);
      assert.is(event.type, 'transcription.completed');
      assert.is(event.data.id, taskId);
      const row = await server.app.db('transcriptions').where({ id: taskId }).first();
      assert.not.ok(row.event_pending === true || row.event_pending === 1, 'the flag is cleared');
      await sleep(500);
      assert.is(receiver.received.length, 1, 'exactly one delivery');
    } finally {
      await server?.app.close();
      await receiver.close().catch(() => undefined);
      await database.drop();
    }
  });

  test('two servers on one database send every delivery exactly once', async () => {
    const database = await freshDatabase(kind);
    const env = {
      ...database.env,
      ...ENV,
      SCRIBE_WEBHOOK_POLL_MS: '20',
      SCRIBE_SECRET_KEY: randomBytes(32).toString('hex'),
    };
    const receiver = await startReceiver();
    receiver.answer = () => new Promise((resolve) => setTimeout(() => resolve(200), 20));
    const servers: Started[] = [];
    try {
      servers.push(await startOn(env), await startOn(env));
      const account = await servers[0]!.app.services.accounts.create({ balance: 1 });
      const [a, b] = servers.map((server) => server.v3(account.api_key!));
      const webhook = await register(a!, `${receiver.url}/hook`);
      const count = 30;
      const enqueued = await Promise.all(
        Array.from({ length: count }, (_, i) => (i % 2 ? a! : b!)('POST', `/v3/webhooks/test/${webhook.id}`)),
      );
      await until('every delivery', async () => {
        const rows = await servers[0]!.app.db('webhook_deliveries').where({ status: 'succeeded' });
        return rows.length === count;
      });
      await sleep(500);
      const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
      assert.is(ids.length, count, 'one request per delivery');
      assert.equal(new Set(ids), new Set(enqueued.map((reply) => reply.body.event_id as string)));
      const attempts = await servers[0]!.app.db('webhook_attempts');
      assert.is(attempts.length, count);
    } finally {
      for (const server of servers) await server.app.close();
      await receiver.close();
      await database.drop();
    }
  });

  test.run();
}
