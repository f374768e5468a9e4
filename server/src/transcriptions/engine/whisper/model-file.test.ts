// The model file check that runs before any process loads a whisper model: a synthetic model passes and is described
// (size, languages); the files that abort, exhaust or silently half-load the native loader are refused with a reason
// that names no file.
import { copyFileSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeSyntheticWhisperModel } from '../../../test-support/whisper-model.ts';
import { inspectWhisperModel, WhisperModelError } from './model-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'scribe-whisper-file-'));
const good = join(dir, 'good.bin');
const size = writeSyntheticWhisperModel(good);

/** A copy of the good model with the int32 at `offset` replaced. */
function patched(name: string, offset: number, value: number): string {
  const path = join(dir, name);
  const bytes = readFileSync(good);
  bytes.writeInt32LE(value, offset);
  writeFileSync(path, bytes);
  return path;
}

function refusal(path: string): string {
  try {
    inspectWhisperModel(path);
  } catch (error) {
    assert.instance(error, WhisperModelError);
    assert.not.ok((error as Error).message.includes(dir), 'the reason names no file');
    return (error as Error).message;
  }
  throw new Error(`${path} was accepted`);
}

const test = suite('whisper model file check');

test('a synthetic multilingual model is accepted and described', () => {
  const info = inspectWhisperModel(good);
  assert.is(info.bytes, size);
  assert.is(info.multilingual, true);
  assert.is(info.languages.length, 99);
  assert.ok(info.languages.includes('ru') && info.languages.includes('en'));
  assert.is(info.width, 32);
  assert.is(info.ftype, 1);
});

test('refused: bad magic, a quantized or invalid ftype, a huge vocabulary, insane dimensions', () => {
  assert.match(refusal(patched('magic.bin', 0, 0x12345678)), /bad magic/);
  // hparams: n_vocab at 4, n_audio_state at 12, ftype at 44.
  assert.match(refusal(patched('ftype.bin', 44, 8)), /ftype 8/);
  assert.match(refusal(patched('vocab.bin', 4, 2 ** 31 - 1)), /n_vocab/);
  assert.match(refusal(patched('width.bin', 12, 100_000)), /n_audio_state/);
});

test('refused: a truncated file (anywhere, even 100 bytes before its end), an empty file, a missing one', () => {
  for (const cut of [40, 5000, size - 100]) {
    const path = join(dir, `cut-${cut}.bin`);
    copyFileSync(good, path);
    truncateSync(path, cut);
    assert.match(refusal(path), /truncated|bad magic/, `cut at ${cut}`);
  }
  const empty = join(dir, 'empty.bin');
  writeFileSync(empty, '');
  assert.match(refusal(empty), /bad magic/);
  assert.match(refusal(join(dir, 'missing.bin')), /cannot be opened \(ENOENT\)/);
});

test('refused: bytes after the last tensor', () => {
  const path = join(dir, 'longer.bin');
  writeFileSync(path, Buffer.concat([readFileSync(good), Buffer.alloc(64, 7)]));
  assert.match(refusal(path), /malformed|truncated|unknown/);
});

test.run();
