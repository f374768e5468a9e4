// Through the API: a job's recognition starts while ffmpeg still decodes its upload, and a decode that dies half-way
// fails the task with the decode's error and charges nothing. The real ffmpeg (behind a wrapper that adds `-re`, so
// a 35 s recording takes 35 s to decode, and records its process ids) and the real PocketSphinx engine, on real
// recordings from Debian's pocketsphinx-testdata joined by pauses.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pacedFfmpeg, processAlive as alive, realFfmpeg } from '../test-support/counting-ffmpeg.ts';
import { joinWithPauses, samplesOf, TEST_DATA_DIR, writePcm } from './engine/test-audio.ts';

const dir = mkdtempSync(join(tmpdir(), 'scribe-streamed-api-'));
const lastFfmpegPid = pacedFfmpeg(dir); // before media/ffmpeg.ts is loaded (by the app)
const { databaseKinds, useHarness } = await import('../test-support/harness.ts');
type Harness = ReturnType<ReturnType<typeof useHarness>>;

const raw = (name: string) => samplesOf(readFileSync(join(TEST_DATA_DIR, name)));
// The three readings twice (≈ 35 s, so ≈ 35 s of decoding at -re): the tests need ffmpeg still running when the
// first words come back, which on a loaded machine (engine start, job pick-up) can take well over the 17 s of once.
const readings = [raw('goforward.raw'), raw('numbers.raw'), raw('something.raw')];
const joined = joinWithPauses([...readings, ...readings], [1.5, 1.5, 1.5, 1.5, 1.5]);
const media = join(dir, 'speech.flac');
const source = await writePcm(join(dir, 'speech.raw'), joined.pcm);
execFileSync(realFfmpeg, ['-loglevel', 'error', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', source, media]);

async function balanceOf(h: Harness, accountId: string): Promise<number> {
  const row = await h.db('accounts').where({ id: accountId }).first();
  return Number(row.balance_minor);
}

async function create(h: Harness, apiKey: string): Promise<string> {
  const form = new FormData();
  form.set('language', 'en');
  form.set('file', new Blob([readFileSync(media)]), 'speech.flac');
  const created = await h.v3(apiKey, 'POST', '/v3/transcriptions/async/create', { form });
  assert.is(created.status, 202, created.text);
  return created.body.transcription_id as string;
}

/** Polls the task until `until` holds for it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary response fields
async function waitFor(h: Harness, apiKey: string, id: string, until: (task: any) => boolean): Promise<any> {
  for (;;) {
    const { body } = await h.v3(apiKey, 'GET', `/v3/transcriptions/status/${id}`);
    if (until(body.data)) return body.data;
    await sleep(50);
  }
}
const ended = (task: { status: string }) => ['completed', 'failed', 'cancelled'].includes(task.status);

for (const kind of databaseKinds) {
  const test = suite(`recognition while the upload decodes, through the API (${kind})`);
  const harness = useHarness(test, kind, { env: { SCRIBE_RATE_LIMIT_RPS: '1000', SCRIBE_WORKERS: '1' } });

  test('progress while ffmpeg still runs, then the words, charged once', async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const before = await balanceOf(h, account.id);
    const id = await create(h, account.apiKey);
    const first = await waitFor(h, account.apiKey, id, (task) => task.progress > 0 || ended(task));
    assert.is(first.status, 'processing');
    assert.ok(alive(lastFfmpegPid()), 'ffmpeg was still decoding when the first words were recognised');
    const done = await waitFor(h, account.apiKey, id, ended);
    assert.is(done.status, 'completed', JSON.stringify(done.error));
    assert.ok(done.result.text.startsWith('go forward ten meters'), done.result.text);
    assert.is(await balanceOf(h, account.id), before - Math.round(done.cost * 100));
    assert.is((await h.db('reservations').where({ account_id: account.id })).length, 1);
  });

  test('ffmpeg dying half-way fails the task with unsupported_format and charges nothing', async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const before = await balanceOf(h, account.id);
    const id = await create(h, account.apiKey);
    const first = await waitFor(h, account.apiKey, id, (task) => task.progress > 0 || ended(task));
    assert.is(first.status, 'processing');
    const pid = lastFfmpegPid();
    process.kill(pid, 'SIGKILL'); // as the OOM killer would, half-way through the medium
    const done = await waitFor(h, account.apiKey, id, ended);
    assert.is(done.status, 'failed');
    assert.is(done.error.code, 'unsupported_format');
    assert.is(done.error.message, 'The audio in the file could not be decoded.');
    assert.is(await balanceOf(h, account.id), before);
  });

  test.run();
}

process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
