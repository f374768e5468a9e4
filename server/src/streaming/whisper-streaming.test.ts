// Stream sessions on the Whisper engine (SCRIBE_WHISPER_MODEL set): the harness's real server with a synthetic model
// (random weights, tiny dimensions; test-support/whisper-model.ts), a real WebSocket, real speech (the LibriVox readings
// of pocketsphinx-testdata) sent at real-time pace. Partials arrive while the audio does, finals with spans that follow
// each other from 0 to the end of the audio and words inside them, the session ends cleanly and is billed as a
// PocketSphinx stream is; the interface's default `ru` and `auto` are accepted, a language the model lacks is refused;
// a model process killed mid-stream ends the session with the contract's error frame (1011), not a hang; the client
// CLI's stream picks `ru` from /v3/models and the session takes it. A random model
// says garbage: structure and times are asserted, never text.
//
// SQLite only: what is tested here does not depend on the database, and the suite pays for model processes.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sendPacedAudio } from '../../../client/src/send-paced-audio.ts';
import { GOFORWARD_RAW, librivoxPcm } from '../test-support/audio.ts';
import { openCheckedSocket, type CheckedSocket } from '../test-support/checked-stream.ts';
import { useHarness, type Harness, type Provisioned } from '../test-support/harness.ts';
import { writeSyntheticWhisperModel } from '../test-support/whisper-model.ts';
import type { WhisperEngine } from '../transcriptions/engine/whisper/engine.ts';

const PRICE = 200; // transcribe_lightning, minor units per minute (the default price table)
const dir = mkdtempSync(join(tmpdir(), 'scribe-whisper-stream-'));
const model = join(dir, 'synthetic.bin');
writeSyntheticWhisperModel(model);
/** 12 s of read speech with the readers' pauses. */
const SPEECH = librivoxPcm(12);
const SECONDS = SPEECH.length / 2 / 16_000;

async function money(h: Harness, accountId: string) {
  const row = await h.db('accounts').where({ id: accountId }).first();
  return { balance: Number(row.balance_minor), reserved: Number(row.reserved_minor) };
}

async function open(h: Harness, account: Provisioned, session: object = { type: 'session' }) {
  const reply = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/stream/create');
  assert.is(reply.status, 201, reply.text);
  const client = await openCheckedSocket(reply.body.stream_url);
  client.sendFrame(session);
  return { client, sessionId: reply.body.session_id as string };
}

function assertClean(client: CheckedSocket): void {
  assert.equal(client.violations, [], 'every server frame and close code follows the AsyncAPI document');
}

const test = suite('streaming on the whisper engine (sqlite)');
const harness = useHarness(test, 'sqlite', {
  env: {
    SCRIBE_WHISPER_MODEL: model,
    // A random model fails the decoder's quality check in every window: without this each decode retries 5 times.
    SCRIBE_WHISPER_TEMPERATURE_INC: '0',
    SCRIBE_RATE_LIMIT_RPS: '1000',
  },
});

test('the default language (ru), real speech at real-time pace: partials, contiguous finals with words, billed', async () => {
  const h = harness();
  const a = await h.provision({ balance: 100 });
  const { client, sessionId } = await open(h, a);
  const started = await client.next('session.started');
  assert.is(started.config.language, 'ru', "the interface's default is served");
  let sentWhenFirstPartial: number | undefined;
  let sent = 0;
  await sendPacedAudio(client, SPEECH, {
    onChunk: (seconds) => {
      sent = seconds;
      if (sentWhenFirstPartial === undefined && client.of('transcript.partial').length > 0)
        sentWhenFirstPartial = seconds;
    },
  });
  const completed = await client.end();
  const closed = await client.closed;
  assertClean(client);
  assert.is(closed.code, 1000);
  assert.is(sent, SECONDS);

  const partials = client.of('transcript.partial');
  assert.ok(partials.length >= 3, `${partials.length} partials`);
  assert.ok(
    sentWhenFirstPartial !== undefined && sentWhenFirstPartial < SECONDS - 2,
    `partials come while the audio is sent (the first after ${sentWhenFirstPartial} s of ${SECONDS} s)`,
  );
  for (const p of partials) assert.ok(p.end >= p.start && p.end <= SECONDS, JSON.stringify(p));

  const finals = client.of('transcript.final');
  assert.ok(finals.length >= 2, `${finals.length} finals: ${JSON.stringify(finals)}`);
  assert.ok(
    finals.some((f) => f.words && f.words.length > 0),
    'some final has words',
  );
  // Spans follow each other without gap or overlap, from 0 to the end of the audio; times never go back.
  assert.is(finals[0]!.start, 0);
  let floor = 0;
  finals.forEach((f, i) => {
    if (i > 0) assert.is(f.start, finals[i - 1]!.end, `final ${i} starts where the previous ended`);
    assert.ok(f.end >= f.start, `final ${i}: [${f.start}, ${f.end}]`);
    assert.ok(f.words, 'word_timestamps is on by default');
    assert.is(f.text.split(/\s+/).filter(Boolean).length, f.words!.length, `final ${i}: a word per spoken word`);
    for (const w of f.words!) {
      assert.ok(w.word.length > 0, 'no empty word');
      assert.ok(w.start >= floor, `final ${i}: ${w.word} at ${w.start} before ${floor}`);
      assert.ok(w.start >= f.start && w.end <= f.end && w.end >= w.start, `final ${i}: ${JSON.stringify(w)} in span`);
      floor = w.start;
    }
  });
  assert.ok(Math.abs(finals.at(-1)!.end - SECONDS) < 0.01, `the last final ends at ${finals.at(-1)!.end} s`);

  assert.is(completed.session_id, sessionId);
  assert.is(completed.duration, SECONDS);
  assert.is(completed.minutes_billed, 1);
  assert.is(completed.cost, PRICE / 100);
  assert.equal(await money(h, a.id), { balance: 100 * 100 - PRICE, reserved: 0 });
  const row = await h.db('stream_sessions').where({ id: sessionId }).first();
  assert.equal([row.status, Number(row.minutes_billed)], ['completed', 1]);
});

test('auto is accepted; finalize answers one final, an empty one when nothing came since; a missing language is refused', async () => {
  const h = harness();
  const a = await h.provision({ balance: 100 });
  const { client } = await open(h, a, {
    type: 'session',
    language: 'auto',
    interim_results: false,
    endpointing: false,
  });
  assert.is((await client.next('session.started')).config.language, 'auto');
  await sendPacedAudio(client, SPEECH.subarray(0, 4 * 32_000), { leadMs: Infinity });
  client.sendFrame({ type: 'finalize' });
  const final = await client.next('transcript.final');
  assert.is(final.start, 0);
  assert.is(final.end, 4, 'the final covers the audio sent before finalize');
  const count = client.frames.length;
  client.sendFrame({ type: 'finalize' });
  const empty = await client.next('transcript.final', { from: count });
  assert.equal([empty.text, empty.start, empty.end, empty.words], ['', 4, 4, []]);
  await client.end();
  assert.is(client.of('transcript.partial').length, 0, 'no partials without interim_results');
  assertClean(client);

  const refused = await open(h, a, { type: 'session', language: 'tlh' });
  const error = await refused.client.next('error');
  assert.is(error.error.code, 'unsupported_language');
  assert.is(error.error.param, 'language');
  assert.match(error.error.message, /tlh/);
  assert.is((await refused.client.closed).code, 4400);
  assertClean(refused.client);
});

test('a model process killed mid-stream: the error frame (engine_unavailable) and 1011, within seconds', async () => {
  const h = harness();
  const a = await h.provision({ balance: 100 });
  const { client, sessionId } = await open(h, a, { type: 'session', language: 'en' });
  await client.next('session.started');
  const pool = (h.app.services.transcriptionEngine as WhisperEngine).pool;
  const sending = sendPacedAudio(client, SPEECH);
  // Kill the process while it decodes this session's window.
  const deadline = Date.now() + 30_000;
  let killed: number | undefined;
  while (killed === undefined && Date.now() < deadline) {
    const pid = pool.busyPids()[0];
    if (pid) {
      process.kill(pid, 'SIGKILL');
      killed = pid;
    } else await sleep(20);
  }
  assert.ok(killed, 'a window was decoding');
  const killedAt = Date.now();
  const closed = await client.closed;
  await sending;
  assert.ok(Date.now() - killedAt < 5000, `closed ${Date.now() - killedAt} ms after the kill`);
  assert.is(closed.code, 1011);
  const error = client.of('error').at(-1);
  assert.is(error?.error.code, 'engine_unavailable');
  assertClean(client);
  // Settled as a server-side failure is (session-billing.ts), and the reservation is not left held.
  for (let i = 0; i < 100 && (await money(h, a.id)).reserved !== 0; i++) await sleep(50);
  assert.is((await money(h, a.id)).reserved, 0);
  const row = await h.db('stream_sessions').where({ id: sessionId }).first();
  assert.not.ok(['created', 'connected'].includes(row.status), row.status);
  // The pool replaced the process: the next session works.
  const next = await open(h, a, { type: 'session', language: 'en', interim_results: false, endpointing: false });
  await next.client.next('session.started');
  await sendPacedAudio(next.client, SPEECH.subarray(0, 3 * 32_000), { leadMs: Infinity });
  await next.client.end();
  assert.is(next.client.of('transcript.final').at(-1)?.end, 3);
  assert.not.ok(pool.pids().includes(killed!));
});

test('scribe-client stream without --language picks ru from /v3/models, and the stream accepts it', async () => {
  const h = harness();
  const { apiKey } = await h.provision({ balance: 100 });
  const cli = new URL('../../../client/src/cli/main.ts', import.meta.url).pathname;
  const out = await promisify(execFile)(process.execPath, ['--import', 'tsx', cli, 'stream', GOFORWARD_RAW, '--fast'], {
    env: { ...process.env, SCRIBE_API_KEY: apiKey, SCRIBE_BASE_URL: h.baseUrl },
    timeout: 120_000,
  });
  assert.match(out.stderr, /^language: ru \(the API's default, which service-transcribe accepts; /);
  assert.not.match(out.stderr, /unsupported_language|error/i);
});

test.run();
