// A task's medium is probed and decoded by ONE ffmpeg run: intake's probe starts the decode and the job takes it.
// ffmpeg is the real binary behind a wrapper that counts its runs (SCRIBE_FFMPEG_PATH); the audio is real speech.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countFfmpegRuns, realFfmpeg } from '../test-support/counting-ffmpeg.ts';

const dir = mkdtempSync(join(tmpdir(), 'scribe-task-files-'));
const runCount = countFfmpegRuns(dir); // before the modules under test load media/ffmpeg.ts
const { createTaskFiles } = await import('./task-files.ts');

const SPEECH = '/usr/share/pocketsphinx/test/data/goforward.raw';
const test = suite('task files: one ffmpeg run per task');
const media = join(dir, 'speech.mp3');
execFileSync(realFfmpeg, ['-loglevel', 'error', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', SPEECH, media]);

test.after(() => rmSync(dir, { recursive: true, force: true }));

test('probeAndDecode then decode: one ffmpeg run, the probe and the PCM of the speech', async () => {
  const files = createTaskFiles(join(dir, 'data'));
  const before = runCount();
  const info = await files.probeAndDecode('task-1', media);
  assert.is(info.format, 'mp3');
  assert.ok(Math.abs(info.durationSeconds - 2.79) < 0.1, `${info.durationSeconds} s`);
  const pcm = await files.decode('task-1', media, new AbortController().signal);
  assert.is(runCount() - before, 1, 'one ffmpeg run for probe and decode');
  assert.ok(Math.abs(pcm.samples - 44_580) < 1600, `${pcm.samples} samples`);
  assert.is(statSync(files.pcmPath('task-1')).size, pcm.samples * 2);
});

test('a job this process did not probe (restart, another server) decodes with its own run', async () => {
  const files = createTaskFiles(join(dir, 'data'));
  const before = runCount();
  const pcm = await files.decode('task-2', media, new AbortController().signal);
  assert.is(runCount() - before, 1);
  assert.ok(pcm.samples > 40_000);
});

test('remove() stops a decode in flight and leaves no files; a refused probe leaves nothing running', async () => {
  const files = createTaskFiles(join(dir, 'data'));
  const long = join(dir, 'long.flac');
  execFileSync(
    realFfmpeg,
    ['-loglevel', 'error', '-stream_loop', '200', '-f', 's16le', '-ar', '16000', '-ac', '1'].concat([
      '-i',
      SPEECH,
      long,
    ]),
  );
  await files.prepare('task-3');
  await files.probeAndDecode('task-3', long);
  await files.remove('task-3');
  assert.not.ok(existsSync(files.pcmPath('task-3')));
  const controller = new AbortController();
  const decoding = files.decode('task-3', long, controller.signal); // a fresh run: the old one was forgotten
  const reason = new Error('lease lost');
  controller.abort(reason);
  try {
    await decoding;
    assert.unreachable('expected the abort');
  } catch (error) {
    assert.is(error, reason);
  }

  const text = join(dir, 'text.wav');
  writeFileSync(text, 'not audio\n'.repeat(100));
  try {
    await files.probeAndDecode('task-4', text);
    assert.unreachable('expected unsupported_format');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'unsupported_format');
  }
  assert.not.ok(existsSync(files.pcmPath('task-4')));
});

test.run();
