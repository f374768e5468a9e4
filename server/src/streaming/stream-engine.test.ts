// The stream engine with one real worker thread and the real PocketSphinx decoder: a decoder that served a session is
// reused by the next one with a fresh decoder's cepstral mean normalisation, so the same audio gives the same finals,
// word for word and to the hundredth of a second, however much audio that decoder heard before.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GOFORWARD_RAW, TESTDATA } from '../test-support/audio.ts';
import type { RecognizerEvent } from './recognizer.ts';
import { createStreamEngine, type StreamEngine } from './stream-engine.ts';

const GOFORWARD = readFileSync(GOFORWARD_RAW);
/** ≈ 9 s of a LibriVox reading, 16 kHz s16le (the WAV header skipped): more than the 800 frames that move the mean. */
const READING = (() => {
  const id = readFileSync(join(TESTDATA, 'librivox/fileids'), 'utf8').split('\n').filter(Boolean)[0]!;
  return readFileSync(join(TESTDATA, 'librivox', `${id}.wav`)).subarray(44);
})();

let engine: StreamEngine;

test.before(() => {
  engine = createStreamEngine({ workers: 1 });
});

test.after(async () => {
  await engine.close();
});

/** One session on the engine: the audio in 100 ms chunks as fast as the worker takes them, then `end`. */
async function session(id: string, pcm: Buffer): Promise<RecognizerEvent[]> {
  const events: RecognizerEvent[] = [];
  let failure: string | undefined;
  const channel = await engine.open(
    id,
    { language: 'en', sampleRate: 16_000, interimResults: false, wordTimestamps: true },
    { onEvents: (e) => events.push(...e), onFailure: (message) => (failure = message) },
  );
  for (let offset = 0; offset < pcm.length; offset += 3200) channel.push(pcm.subarray(offset, offset + 3200));
  await channel.end();
  assert.is(failure, undefined);
  return events.filter((e) => e.type === 'transcript.final' && e.text !== '');
}

test('the same audio in consecutive sessions on one worker gives identical finals and word times', async () => {
  const first = await session('s1', GOFORWARD);
  assert.is(first.length, 1, JSON.stringify(first));
  assert.is(first[0]!.text, 'go forward ten meters');
  assert.ok((first[0] as { words: unknown[] }).words.length === 4);
  const worker = engine.workers()[0];
  // Other speech in between: without the reset, the running sums it leaves (and the mean they move) change the
  // decoding of the next sessions.
  const reading = await session('s2', READING);
  assert.ok(reading.length > 0, 'the reading was recognised');
  for (let i = 3; i <= 5; i++) assert.equal(await session(`s${i}`, GOFORWARD), first, `session ${i}`);
  assert.is(engine.workers().length, 1);
  assert.is(engine.workers()[0], worker, 'all on the same worker (its decoders reused)');
});

test.run();
