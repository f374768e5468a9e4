// The engine decodes what the binding decodes when called directly, with the same options (binding-input.ts) on the
// same file or window: a file job (read by the model process, an odd trailing byte dropped), a job with terms (the
// prompt), and a stream window (samples sent over IPC) give the very text and words of a direct decode. So the model
// process does no decoding work of its own — what bench/stt-whisper.ts's comparison relies on. A random model's output
// is garbage but deterministic (whisper.cpp's CPU results do not depend on timing), so equal output is equal work.
// What this can tell apart: options that change the decode (a temperature fallback, translation), the audio's length,
// the prompt. Not the samples' content: the synthetic model's output hardly depends on it (binding-input.test.ts
// checks that the samples handed over are the file's).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GOFORWARD_RAW } from '../../../test-support/audio.ts';
import { writeSyntheticWhisperModel } from '../../../test-support/whisper-model.ts';
import { roundTime } from '../engine.ts';
import { SAMPLE_RATE } from '../pcm-file.ts';
import { pcmAudio, whisperDecodeOptions } from './binding-input.ts';
import { createWhisperEngine } from './engine.ts';
import { wordsOf } from './words.ts';

interface Direct {
  result: string;
  segments: { text: string; t0: number; t1: number }[];
}
interface Binding {
  initWhisper(options: { filePath: string; useGpu: boolean }): Promise<{
    transcribeData(audio: ArrayBuffer, options: Record<string, unknown>): { promise: Promise<Direct> };
    release(): Promise<void>;
  }>;
}

const dir = mkdtempSync(join(tmpdir(), 'scribe-whisper-same-'));
const model = join(dir, 'synthetic.bin');
writeSyntheticWhisperModel(model);
const settings = { threads: 1, decode: { temperatureInc: 0 } };
/** goforward with one stray byte at its end, as a truncated upload's decode may leave: not a sample. */
const oddPath = join(dir, 'goforward-odd.raw');
writeFileSync(oddPath, Buffer.concat([readFileSync(GOFORWARD_RAW), Buffer.from([0x7f])]));

const binding = createRequire(import.meta.url)('@fugood/whisper.node') as Binding;
const context = await binding.initWhisper({ filePath: model, useGpu: false });
const engine = createWhisperEngine({ modelPath: model, ...settings });

/** A direct decode of these PCM bytes, as the transcript the engine would make of it. */
async function direct(pcm: Uint8Array, prompt?: string) {
  const options = whisperDecodeOptions(settings, { language: 'en', ...(prompt ? { prompt } : {}) });
  const result = await context.transcribeData(pcmAudio(pcm), options).promise;
  const text = result.result.trim();
  const duration = roundTime(Math.floor(pcm.length / 2) / SAMPLE_RATE);
  return { text, duration, words: wordsOf(text, result.segments, duration) };
}

const test = suite('whisper engine: the same decode as the binding called directly');

test.after(async () => {
  await engine.close();
  await context.release();
});

test('a file job: the same text and words as a direct decode of the file', async () => {
  const expected = await direct(readFileSync(GOFORWARD_RAW));
  assert.ok(expected.words.length > 0, 'the direct decode has words to compare');
  const got = await engine.transcribe({ pcmPath: GOFORWARD_RAW, language: 'en' });
  assert.equal({ text: got.text, duration: got.duration, words: got.words }, expected);
});

test('a file with an odd trailing byte: the same decode as of its whole samples', async () => {
  const expected = await direct(readFileSync(oddPath));
  const got = await engine.transcribe({ pcmPath: oddPath, language: 'en' });
  assert.equal({ text: got.text, duration: got.duration, words: got.words }, expected);
});

test('a file job with terms: the same decode as a direct one with them as the prompt', async () => {
  const expected = await direct(readFileSync(GOFORWARD_RAW), 'forward, meters');
  const got = await engine.transcribe({ pcmPath: GOFORWARD_RAW, language: 'en', terms: ['forward', ' meters '] });
  assert.equal({ text: got.text, duration: got.duration, words: got.words }, expected);
});

test('a stream window (samples over IPC, from inside a larger buffer): the same decode as a direct one', async () => {
  const file = readFileSync(GOFORWARD_RAW);
  const all = new Int16Array(file.buffer.slice(file.byteOffset, file.byteOffset + file.length));
  const window = all.subarray(SAMPLE_RATE / 2, SAMPLE_RATE * 2); // a view at an offset, as a session's window is
  const expected = await direct(new Uint8Array(window.buffer, window.byteOffset, window.byteLength), 'go');
  const got = await engine.decodeWindow({ pcm: window, language: 'en', prompt: 'go' });
  assert.equal({ text: got.text, duration: got.duration, words: got.words }, expected);
});

test.run();
