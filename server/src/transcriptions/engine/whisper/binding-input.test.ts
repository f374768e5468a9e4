// What a model process hands the binding: exactly the file's whole samples, wherever its bytes sit in their
// ArrayBuffer (a pooled Buffer's view starts inside a larger one), and the decode options of the job and the engine.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pcmAudio, whisperDecodeOptions } from './binding-input.ts';

const test = suite('whisper binding input');

test('pcmAudio: the samples of a view inside a larger buffer, an odd trailing byte left out', () => {
  const samples = [0, 1, -1, 32767, -32768, 258];
  const file = Buffer.alloc(samples.length * 2 + 1);
  samples.forEach((sample, i) => file.writeInt16LE(sample, i * 2));
  file[file.length - 1] = 0x7f;
  const backing = new Uint8Array(file.length + 40);
  backing.set(file, 17); // at an odd offset: Int16Array cannot view it in place
  const audio = pcmAudio(backing.subarray(17, 17 + file.length));
  assert.is(audio.byteLength, samples.length * 2);
  assert.equal([...new Int16Array(audio)], samples);
});

test('pcmAudio: an Int16Array view (a stream window) gives its own samples only', () => {
  const all = Int16Array.from([5, 6, 7, 8, 9]);
  const window = all.subarray(1, 4);
  const audio = pcmAudio(new Uint8Array(window.buffer, window.byteOffset, window.byteLength));
  assert.equal([...new Int16Array(audio)], [6, 7, 8]);
});

test('whisperDecodeOptions: the job language and prompt, the threads, per-token times, then the extra settings', () => {
  const options = whisperDecodeOptions(
    { threads: 3, decode: { temperatureInc: 0 } },
    { language: 'de', prompt: 'a, b' },
  );
  assert.equal(options, {
    language: 'de',
    maxThreads: 3,
    tokenTimestamps: true,
    maxLen: 1,
    prompt: 'a, b',
    temperatureInc: 0,
  });
});

test('whisperDecodeOptions: no prompt option without a prompt, and the extra settings override the defaults', () => {
  const options = whisperDecodeOptions({ threads: 1, decode: { maxLen: 0 } }, { language: 'en', prompt: '' });
  assert.not.ok('prompt' in options);
  assert.is(options.maxLen, 0);
  assert.not.ok('temperatureInc' in whisperDecodeOptions({ threads: 1 }, { language: 'en' }));
});

test.run();
