// One Scribe as the transcription engine of another, end to end with real processes (`node --import tsx
// server/src/main.ts`), a real database each and the real PocketSphinx engine at the far end: B runs PocketSphinx;
// A is configured with `SCRIBE_TRANSCRIBE_MODEL=openai:<B>/v3#service-transcribe` and a v3 key of an account on B, so
// A's engine (openai-compatible.ts) calls B's `POST /v3/audio/transcriptions`. A v3 sync transcription on A comes back
// with B's words and times; B records the call as a sync task of its account and charges that account once, and A
// charges its own account once; a call B refuses fails A's task, and A's waiting OpenAI request answers its error.
// Every answer of both servers is checked against the contract.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../../../test/support/processes.ts';
import { goforward, GOFORWARD_STARTS } from '../../test-support/audio.ts';
import { checkResponse } from '../../test-support/contract-check.ts';
import { ADMIN_TOKEN, databaseKinds } from '../../test-support/test-databases.ts';
import { startScribe, type ScribeProcess as Scribe } from '../../test-support/scribe-process.ts';

const GOFORWARD_TEXT = 'go forward ten meters';

/** A request to a server; the answer is checked against the contract before it is returned. */
async function call(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; json?: unknown; form?: FormData } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary response fields
): Promise<{ status: number; text: string; body: any }> {
  const headers = { ...options.headers, ...(options.json !== undefined ? { 'Content-Type': 'application/json' } : {}) };
  const body = options.form ?? (options.json !== undefined ? JSON.stringify(options.json) : undefined);
  const response = await fetch(`${base}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const reply = { status: response.status, headers: response.headers, text, body: parsed };
  checkResponse({ method, path: new URL(path, base).pathname }, reply);
  return reply;
}

async function createAccount(server: Scribe, balance: number): Promise<{ id: string; apiKey: string }> {
  const created = await call(server.base, 'POST', '/admin/accounts', {
    headers: { 'X-Admin-Token': ADMIN_TOKEN },
    json: { balance },
  });
  assert.is(created.status, 201, created.text);
  return { id: created.body.account.id, apiKey: created.body.api_key };
}

async function capturesOf(server: Scribe, accountId: string): Promise<{ amount: number }[]> {
  const ledger = await call(server.base, 'GET', `/admin/accounts/${accountId}/ledger?limit=100`, {
    headers: { 'X-Admin-Token': ADMIN_TOKEN },
  });
  assert.is(ledger.status, 200, ledger.text);
  return ledger.body.data.filter((entry: { kind: string }) => entry.kind === 'capture');
}

for (const kind of databaseKinds) {
  const test = suite(`Scribe as the upstream engine of Scribe (${kind})`);

  test('a v3 sync task on A is transcribed by B: B’s words and times, a sync task on B, both accounts charged once', async () => {
    let upstream: Scribe | undefined;
    let front: Scribe | undefined;
    try {
      upstream = await startScribe(kind);
      const onB = await createAccount(upstream, 100);
      front = await startScribe(kind, {
        SCRIBE_TRANSCRIBE_MODEL: `openai:${upstream.base}/v3#service-transcribe`,
        SCRIBE_TRANSCRIBE_API_KEY: onB.apiKey,
      });
      const onA = await createAccount(front, 100);
      const authA = { Authorization: `Bearer ${onA.apiKey}` };
      const authB = { Authorization: `Bearer ${onB.apiKey}` };

      // A's model list follows the contract: its upstream accepts any language, so no language list is claimed.
      const models = await call(front.base, 'GET', '/v3/models', { headers: authA });
      assert.is(models.status, 200, models.text);
      const transcribe = models.body.data.find((m: { id: string }) => m.id === 'service-transcribe');
      assert.is(transcribe.languages, undefined);
      assert.is(transcribe.engine, 'openai-compatible');

      const form = new FormData();
      form.set('language', 'en');
      form.set('output', JSON.stringify({ confidence: true }));
      form.set('file', new Blob([readFileSync(goforward('wav'))]), 'goforward.wav');
      const created = await call(front.base, 'POST', '/v3/transcriptions/sync/create', { headers: authA, form });
      assert.is(created.status, 200, created.text);
      const id = created.body.data.id;
      let task = created.body.data;
      for (let i = 0; !['completed', 'failed', 'cancelled'].includes(task.status); i += 1) {
        assert.ok(i < 600, `A's task is still ${task.status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        task = (await call(front.base, 'GET', `/v3/transcriptions/status/${id}`, { headers: authA })).body.data;
      }
      assert.is(task.status, 'completed', JSON.stringify(task.error));
      assert.is(task.result.text, GOFORWARD_TEXT);
      assert.equal(
        task.result.words.map((w: { word: string }) => w.word),
        GOFORWARD_TEXT.split(' '),
      );
      task.result.words.forEach((w: { start: number; end: number; confidence?: number }, i: number) => {
        assert.ok(Math.abs(w.start - GOFORWARD_STARTS[i]!) <= 0.1, `word ${i} starts at ${w.start}`);
        assert.ok(w.end > w.start, `word ${i} ends at ${w.end}`);
        // OpenAI's word shape has no confidence, and none is invented on the way.
        assert.is(w.confidence, undefined);
      });

      // B recorded the call as a completed sync task of its account, with the same words.
      const listed = await call(upstream.base, 'GET', '/v3/transcriptions/list', { headers: authB });
      assert.is(listed.status, 200, listed.text);
      assert.is(listed.body.data.length, 1, listed.text);
      const onUpstream = listed.body.data[0];
      assert.is(onUpstream.mode, 'sync');
      assert.is(onUpstream.priority, 'lightning');
      assert.is(onUpstream.status, 'completed');
      assert.is(onUpstream.language, 'en');
      assert.is(onUpstream.result.text, GOFORWARD_TEXT);
      assert.equal(
        onUpstream.result.words.map((w: { start: number }) => w.start),
        task.result.words.map((w: { start: number }) => w.start),
      );

      // Each server charged its own account once: B at the lightning price for the call, A for its sync task.
      const upstreamCaptures = await capturesOf(upstream, onB.id);
      assert.is(upstreamCaptures.length, 1, JSON.stringify(upstreamCaptures));
      assert.is(upstreamCaptures[0]!.amount, -onUpstream.cost);
      assert.is(onUpstream.minutes_billed, 1);
      const frontCaptures = await capturesOf(front, onA.id);
      assert.is(frontCaptures.length, 1, JSON.stringify(frontCaptures));
      assert.is(frontCaptures[0]!.amount, -task.cost);
      const accountB = await call(upstream.base, 'GET', `/admin/accounts/${onB.id}`, {
        headers: { 'X-Admin-Token': ADMIN_TOKEN },
      });
      assert.is(accountB.body.balance, 100 - onUpstream.cost);

      // A's own OpenAI endpoint in Russian: A's upstream accepts any language, B refuses it (PocketSphinx has only
      // English), so A's task fails and the waiting request gets the task's error; nobody is charged for it.
      const russian = new FormData();
      russian.set('model', 'whisper-1');
      russian.set('language', 'ru');
      russian.set('file', new Blob([readFileSync(goforward('wav'))]), 'goforward.wav');
      const failed = await call(front.base, 'POST', '/v3/audio/transcriptions', { headers: authA, form: russian });
      assert.is(failed.status, 500, failed.text);
      assert.is(failed.body.error.code, 'task_failed');
      assert.is((await capturesOf(front, onA.id)).length, 1);
      assert.is((await call(upstream.base, 'GET', '/v3/transcriptions/list', { headers: authB })).body.data.length, 1);
    } catch (error) {
      if (front) console.error(`A's output:\n${front.process.output().slice(-4000)}`);
      if (upstream) console.error(`B's output:\n${upstream.process.output().slice(-4000)}`);
      throw error;
    } finally {
      await front?.stop();
      await upstream?.stop();
    }
  });

  test('an unreachable upstream: the OpenAI call is 503 engine_unavailable and nothing is charged', async () => {
    const closedPort = await freePort();
    const front = await startScribe(kind, {
      SCRIBE_TRANSCRIBE_MODEL: `openai:http://127.0.0.1:${closedPort}/v3#service-transcribe`,
      SCRIBE_TRANSCRIBE_API_KEY: 'sk_live_unused',
    });
    try {
      const onA = await createAccount(front, 100);
      const form = new FormData();
      form.set('model', 'whisper-1');
      form.set('language', 'en');
      form.set('file', new Blob([readFileSync(goforward('wav'))]), 'goforward.wav');
      const reply = await call(front.base, 'POST', '/v3/audio/transcriptions', {
        headers: { Authorization: `Bearer ${onA.apiKey}` },
        form,
      });
      assert.is(reply.status, 503, reply.text);
      assert.is(reply.body.error.code, 'engine_unavailable');
      assert.is((await capturesOf(front, onA.id)).length, 0);
    } catch (error) {
      console.error(`A's output:\n${front.process.output().slice(-4000)}`);
      throw error;
    } finally {
      await front.stop();
    }
  });

  test.run();
}
