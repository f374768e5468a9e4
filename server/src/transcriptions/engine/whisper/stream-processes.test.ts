// Processes kept for live streams (SCRIBE_WHISPER_STREAM_PROCESSES): files never take them, so a stream's next window
// starts at once while a file decodes, instead of waiting for the file's decode to end; without them files take every
// process. Real model processes with the synthetic model; what is asserted is which jobs ran at once, never text.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { librivoxPcm } from '../../../test-support/audio.ts';
import { writeSyntheticWhisperModel } from '../../../test-support/whisper-model.ts';
import { createWhisperEngine, type WhisperEngine } from './engine.ts';

const dir = mkdtempSync(join(tmpdir(), 'scribe-whisper-reserve-'));
const model = join(dir, 'synthetic.bin');
writeSyntheticWhisperModel(model);
const decode = { temperatureInc: 0 };
// 120 s of speech: several 30 s windows, so a file's decode lasts well beyond one stream window's.
const readings = librivoxPcm(24);
const longFile = join(dir, 'long.raw');
writeFileSync(longFile, Buffer.concat(Array.from({ length: 5 }, () => readings)));
const window = new Int16Array(readings.buffer, readings.byteOffset, 16_000 * 2); // 2 s, as a stream step holds

/** The most processes busy at once while `work` runs (sampled every 20 ms). */
async function mostBusy(engine: WhisperEngine, work: Promise<unknown>): Promise<number> {
  let most = 0;
  let done = false;
  const sampling = (async () => {
    while (!done) {
      most = Math.max(most, engine.pool.busyPids().length);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await work.finally(() => (done = true));
  await sampling;
  return most;
}

const test = suite('whisper model processes kept for streams');

test('with one of two processes kept, files run one at a time and a window does not wait for a file', async () => {
  const engine = createWhisperEngine({ modelPath: model, processes: 2, streamProcesses: 1, threads: 1, decode });
  try {
    await engine.transcribe({ pcmPath: longFile, language: 'en' }); // both processes started, the model loaded
    const files = Promise.all([1, 2].map(() => engine.transcribe({ pcmPath: longFile, language: 'en' })));
    let fileEnded = false;
    // A failed assertion closes the engine, which fails the files: handled here, so the assertion is what is reported.
    void files.then(
      () => (fileEnded = true),
      () => undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.is(engine.pool.busyPids().length, 1, 'two files queued, one decoding');
    const windowDone = await engine.decodeWindow({ pcm: window, language: 'en' }).then(() => fileEnded);
    assert.is(windowDone, false, 'the window finished before the files did');
    assert.is(await mostBusy(engine, files), 1, 'the files never ran on the kept process');
  } finally {
    await engine.close();
  }
});

test('with none kept (the default), files run on every process', async () => {
  const engine = createWhisperEngine({ modelPath: model, processes: 2, threads: 1, decode });
  try {
    await engine.transcribe({ pcmPath: longFile, language: 'en' });
    const files = Promise.all([1, 2].map(() => engine.transcribe({ pcmPath: longFile, language: 'en' })));
    assert.is(await mostBusy(engine, files), 2);
  } finally {
    await engine.close();
  }
});

test('a setting that would leave files no process is refused at start, in one line', async () => {
  const { loadConfig, ConfigError } = await import('../../../config.ts');
  const env = { SCRIBE_DATA_DIR: dir, SCRIBE_WHISPER_PROCESSES: '2', SCRIBE_WHISPER_STREAM_PROCESSES: '2' };
  assert.throws(
    () => loadConfig(env),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message ===
        'SCRIBE_WHISPER_STREAM_PROCESSES must be less than SCRIBE_WHISPER_PROCESSES (2): files need a process of their own, got "2"',
  );
  assert.is(loadConfig({ ...env, SCRIBE_WHISPER_STREAM_PROCESSES: '1' }).transcription.whisper.streamProcesses, 1);
});

test.run();
