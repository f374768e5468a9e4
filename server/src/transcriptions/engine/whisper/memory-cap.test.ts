// The model processes' memory cap (SCRIBE_WHISPER_MAX_RSS_MB): a decoding process resident above it is killed and
// replaced, its job failed as retryable (worker_crashed, the message naming the cap and the setting); the next job runs
// on the new process. A cap above what the model needs changes nothing. Real model processes with the synthetic model.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GOFORWARD_RAW } from '../../../test-support/audio.ts';
import { writeSyntheticWhisperModel } from '../../../test-support/whisper-model.ts';
import { EngineError } from '../engine.ts';
import { createWhisperEngine } from './engine.ts';

const dir = mkdtempSync(join(tmpdir(), 'scribe-whisper-cap-'));
const model = join(dir, 'synthetic.bin');
writeSyntheticWhisperModel(model);
const decode = { temperatureInc: 0 };

const test = suite('whisper model processes: memory cap');

test('a process over the cap is killed and replaced; its job fails retryable, naming the cap', async () => {
  // Below what a loaded model process holds (≈ 90–140 MB): the first check while it decodes finds it over.
  const engine = createWhisperEngine({ modelPath: model, threads: 1, decode, maxRssMb: 40 });
  try {
    const error = await engine.transcribe({ pcmPath: GOFORWARD_RAW, language: 'en' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(error, EngineError);
    assert.is((error as EngineError).code, 'worker_crashed');
    assert.ok((error as EngineError).retryable);
    assert.match((error as EngineError).message, /over its cap of 40 MB \(SCRIBE_WHISPER_MAX_RSS_MB\)/);
    assert.is(engine.pool.overCapKills, 1);
    assert.ok(engine.pool.peakRss > 40 * 2 ** 20, `the reading that passed the cap: ${engine.pool.peakRss}`);
  } finally {
    await engine.close();
  }
});

test('a cap above what the model needs: jobs complete, nothing is killed', async () => {
  const engine = createWhisperEngine({ modelPath: model, threads: 1, decode, maxRssMb: 2048 });
  try {
    const pids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const result = await engine.transcribe({ pcmPath: GOFORWARD_RAW, language: 'en' });
      assert.ok(result.duration > 2.7 && result.duration < 2.9, `duration ${result.duration}`);
      pids.push(...engine.pool.pids());
    }
    assert.is(engine.pool.overCapKills, 0);
    assert.is(pids[0], pids[1], 'the same process ran both jobs');
  } finally {
    await engine.close();
  }
});

test.run();
