// Recognition that reads the PCM while ffmpeg still writes it, with the real ffmpeg and the real PocketSphinx engine
// on real recordings (goforward, numbers and something from Debian's pocketsphinx-testdata, joined by pauses). ffmpeg
// runs behind a wrapper that adds `-re` (read the input at its own pace: a 17 s file takes 17 s to decode), so the
// decode is still running while the engine works, and that records its process ids. Nothing here waits for a time:
// each step waits for an event (the first progress, the decode's end, the engine's pool going idle).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pacedFfmpeg, processAlive as alive, realFfmpeg } from '../test-support/counting-ffmpeg.ts';
import { GO_FORWARD, joinWithPauses, samplesOf, TEST_DATA_DIR, writePcm } from './engine/test-audio.ts';

const dir = mkdtempSync(join(tmpdir(), 'scribe-streamed-'));
const lastFfmpegPid = pacedFfmpeg(dir); // before media/ffmpeg.ts is loaded
const { ApiError } = await import('../http/api-error.ts');
const { createPocketSphinxEngine } = await import('./engine/pocketsphinx/engine.ts');
const { createTaskFiles } = await import('./task-files.ts');
const { recogniseWhileDecoding } = await import('./recognise-while-decoding.ts');

const raw = (name: string) => samplesOf(readFileSync(join(TEST_DATA_DIR, name)));
const joined = joinWithPauses(
  [raw('goforward.raw'), raw('numbers.raw'), raw('something.raw'), raw(GO_FORWARD.path.split('/').pop()!)],
  [1.5, 1.5, 1.5],
);
const seconds = joined.pcm.length / 16_000;
const source = await writePcm(join(dir, 'speech.raw'), joined.pcm);
const media = join(dir, 'speech.flac');
execFileSync(realFfmpeg, ['-loglevel', 'error', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', source, media]);

const engine = createPocketSphinxEngine({ workers: 1 });
const files = createTaskFiles(join(dir, 'data'));
const test = suite('recognition while ffmpeg decodes');

test.after(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

async function poolIdle(): Promise<void> {
  while (engine.pool.stats().busy > 0) await sleep(20);
}

/** Runs a task's decode and recognition as the pipeline does; `onFirstProgress` sees whether ffmpeg still ran. */
function run(id: string, signal: AbortSignal, onFirstProgress: (decodeEnded: boolean) => void) {
  let decodeEnded = false;
  let seen = false;
  return recogniseWhileDecoding(
    engine,
    { pcmPath: files.pcmPath(id), language: 'en', expectedSeconds: seconds },
    (decodeSignal) => {
      const decoding = files.decode(id, media, decodeSignal);
      void decoding.then(
        () => (decodeEnded = true),
        () => (decodeEnded = true),
      );
      return decoding;
    },
    {
      signal,
      onProgress: (fraction) => {
        if (seen || fraction <= 0 || fraction >= 1) return;
        seen = true;
        onFirstProgress(decodeEnded);
      },
    },
  );
}

test('recognition starts while ffmpeg decodes, and gives the words of the complete file', async () => {
  const complete = await engine.transcribe({ pcmPath: source, language: 'en' });
  let decodingAtFirstProgress: boolean | undefined;
  const streamed = await run('task-1', new AbortController().signal, (ended) => (decodingAtFirstProgress = !ended));
  assert.is(decodingAtFirstProgress, true, 'words were recognised before ffmpeg had finished');
  const timed = (t: typeof complete) => t.words.map((w) => `${w.word}@${w.start}-${w.end}`);
  assert.equal(timed(streamed), timed(complete));
  assert.ok(streamed.text.startsWith('go forward ten meters'), streamed.text);
  assert.is(streamed.duration, complete.duration);
});

test('a decode that dies half-way fails with the decode error; the engine stops and no PCM is left', async () => {
  let pid = 0;
  const outcome = await run('task-2', new AbortController().signal, () => {
    pid = lastFfmpegPid();
    process.kill(pid, 'SIGKILL'); // as the OOM killer would, half-way through the medium
  }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(pid > 0, 'the engine reported progress while ffmpeg ran');
  assert.instance(outcome, ApiError);
  assert.is((outcome as InstanceType<typeof ApiError>).code, 'unsupported_format');
  assert.is((outcome as Error).message, 'The audio in the file could not be decoded.');
  await poolIdle();
  assert.not.ok(existsSync(files.pcmPath('task-2')));
});

test('aborting mid-stream kills ffmpeg, stops the engine and leaves no PCM', async () => {
  const controller = new AbortController();
  const reason = new Error('lease lost');
  let pid = 0;
  const outcome = await run('task-3', controller.signal, () => {
    pid = lastFfmpegPid();
    controller.abort(reason);
  }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(pid > 0, 'the engine reported progress while ffmpeg ran');
  assert.ok(outcome !== undefined, 'rejected');
  assert.not.ok(alive(pid), 'ffmpeg was killed');
  await poolIdle();
  assert.not.ok(existsSync(files.pcmPath('task-3')));
});

test.run();
