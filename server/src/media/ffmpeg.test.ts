// probeMedia and decodeToPcm on real speech (PocketSphinx's "go forward ten meters", 2.79 s of 16 kHz mono) encoded
// by the real ffmpeg into every container the API accepts, plus the inputs that must be refused: text posing as
// WAV, video without audio, a playlist that points at the network. Containers that carry no duration (a WebM
// written as a live stream) or only a bitrate guess (bare ADTS AAC, MP3 without a Xing header) are measured by
// decoding.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../http/api-error.ts';
import { decodeToPcm, ffmpegPath, probeMedia, startDecode } from './ffmpeg.ts';

const run = promisify(execFile);
const SPEECH = '/usr/share/pocketsphinx/test/data/goforward.raw';
const SPEECH_SAMPLES = statSync(SPEECH).size / 2; // 44 580
const test = suite('ffmpeg probe and decode');
let dir = '';

/** Output options per test file: the six accepted formats, and the awkward variants of some. */
const encodings: Record<string, string[]> = {
  'speech.wav': [],
  'speech.mp3': [],
  'speech.ogg': [],
  'speech.m4a': [],
  'speech.flac': [],
  'speech.webm': [],
  'live.webm': ['-f', 'webm', '-live', '1'],
  'bare.aac': ['-c:a', 'aac', '-f', 'adts'],
  'noxing.mp3': ['-write_xing', '0'],
};

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'scribe-ffmpeg-'));
  const input = ['-hide_banner', '-loglevel', 'error', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', SPEECH];
  await Promise.all(
    Object.entries(encodings).map(([name, extra]) => run(ffmpegPath, [...input, ...extra, join(dir, name)])),
  );
  // A WebM whose header says nothing about duration, the way a browser's MediaRecorder writes it: through a pipe.
  await run('/bin/sh', ['-c', `"${ffmpegPath}" ${input.join(' ')} -f webm - > "${join(dir, 'piped.webm')}"`]);
  await run(ffmpegPath, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=d=1',
    join(dir, 'video.mp4'),
  ]);
  writeFileSync(join(dir, 'text.wav'), 'This is a text file, not a recording.\n'.repeat(50));
  writeFileSync(join(dir, 'empty.wav'), '');
  const playlist = '#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nhttp://127.0.0.1:9/segment.ts\n#EXT-X-ENDLIST\n';
  writeFileSync(join(dir, 'playlist.m3u8'), playlist);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

async function expectUnsupported(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ApiError);
    const apiError = error as ApiError;
    assert.is(apiError.status, 400);
    assert.is(apiError.code, 'unsupported_format');
    assert.is(apiError.param, 'file');
    assert.not.match(apiError.message, dir, 'the message does not show server paths');
    return apiError;
  }
  assert.unreachable('expected unsupported_format');
}

const expectedFormats: Record<string, string> = {
  'speech.wav': 'wav',
  'speech.mp3': 'mp3',
  'speech.ogg': 'ogg',
  'speech.m4a': 'mov,mp4,m4a,3gp,3g2,mj2',
  'speech.flac': 'flac',
  'speech.webm': 'matroska,webm',
  'live.webm': 'matroska,webm',
  'piped.webm': 'matroska,webm',
  'bare.aac': 'aac',
  'noxing.mp3': 'mp3',
};

for (const [name, format] of Object.entries(expectedFormats)) {
  test(`${name}: probes to ${format}, 2.79 s with audio, and decodes to about 44 580 samples`, async () => {
    const info = await probeMedia(join(dir, name));
    assert.is(info.format, format);
    assert.is(info.hasAudio, true);
    assert.ok(Math.abs(info.durationSeconds - 2.79) <= 0.1, `probed ${info.durationSeconds} s`);

    const out = join(dir, `${name}.pcm`);
    const pcm = await decodeToPcm(join(dir, name), out);
    assert.ok(Math.abs(pcm.samples - 44_580) <= 1600, `decoded ${pcm.samples} samples`);
    assert.is(statSync(out).size, pcm.samples * 2);
    assert.is(pcm.durationSeconds, pcm.samples / 16_000);
    rmSync(out);
  });
}

for (const name of Object.keys(expectedFormats)) {
  test(`${name}: one ffmpeg run (startDecode) gives the same probe and PCM as probeMedia + decodeToPcm`, async () => {
    const out = join(dir, `${name}.once.pcm`);
    const running = startDecode(join(dir, name), out);
    const [info, pcm] = await Promise.all([running.probed, running.decoded]);
    const separate = await probeMedia(join(dir, name));
    assert.is(info.format, separate.format);
    assert.is(info.hasAudio, true);
    assert.ok(Math.abs(info.durationSeconds - separate.durationSeconds) < 0.05, `${info.durationSeconds} s`);
    const reference = join(dir, `${name}.ref.pcm`);
    await decodeToPcm(join(dir, name), reference);
    assert.ok(readFileSync(out).equals(readFileSync(reference)), 'the same PCM as a separate decode');
    assert.is(pcm.samples, statSync(out).size / 2);
    rmSync(out);
    rmSync(reference);
  });
}

test('startDecode: the probe is known before the decode of a long file ends', async () => {
  const long = join(dir, 'long.wav');
  await run(
    ffmpegPath,
    ['-hide_banner', '-loglevel', 'error', '-stream_loop', '60', '-f', 's16le', '-ar', '16000'].concat([
      '-ac',
      '1',
      '-i',
      SPEECH,
      '-c:a',
      'flac',
      join(dir, 'long.flac'),
    ]),
  );
  await run(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-i', join(dir, 'long.flac'), '-ar', '48000', long]);
  const running = startDecode(long, join(dir, 'long.pcm'));
  let decodedFirst = false;
  void running.decoded.then(() => (decodedFirst = true));
  const info = await running.probed;
  assert.not.ok(decodedFirst, 'the probe resolved while ffmpeg was still decoding');
  assert.ok(Math.abs(info.durationSeconds - 61 * 2.79) < 1, `${info.durationSeconds} s`);
  const pcm = await running.decoded;
  assert.ok(Math.abs(pcm.durationSeconds - info.durationSeconds) < 0.05);
  rmSync(join(dir, 'long.pcm'));
});

test('startDecode and decodeToPcm with maxOutputSeconds: the PCM stops there, whatever the probe states', async () => {
  // 61 × 2.79 s of speech in an MP3 whose Xing header states 10 frames (0.36 s): a forged, short-looking file.
  const mp3 = join(dir, 'forged.mp3');
  const input = ['-hide_banner', '-loglevel', 'error', '-stream_loop', '60', '-f', 's16le', '-ar', '16000'];
  await run(ffmpegPath, [...input, '-ac', '1', '-i', SPEECH, '-c:a', 'libmp3lame', '-b:a', '24k', mp3]);
  const bytes = readFileSync(mp3);
  const at = Math.max(bytes.indexOf('Xing'), bytes.indexOf('Info'));
  assert.ok(at > 0, 'a Xing/Info header');
  bytes.writeUInt32BE(10, at + 8);
  writeFileSync(mp3, bytes);
  const running = startDecode(mp3, join(dir, 'forged.pcm'), { maxOutputSeconds: 12.5 });
  const info = await running.probed;
  assert.ok(info.durationSeconds < 1, `the probe trusts the header: ${info.durationSeconds} s`);
  const pcm = await running.decoded;
  assert.ok(Math.abs(pcm.durationSeconds - 12.5) < 0.05, `decoded ${pcm.durationSeconds} s`);
  const bounded = await decodeToPcm(mp3, join(dir, 'forged2.pcm'), { maxOutputSeconds: 3 });
  assert.ok(Math.abs(bounded.durationSeconds - 3) < 0.05, `decoded ${bounded.durationSeconds} s`);
  const whole = await decodeToPcm(mp3, join(dir, 'forged3.pcm'));
  assert.ok(Math.abs(whole.durationSeconds - 61 * 2.79) < 1, `unbounded: ${whole.durationSeconds} s`);
  for (const name of ['forged.pcm', 'forged2.pcm', 'forged3.pcm']) rmSync(join(dir, name));
});

test('startDecode refuses what probeMedia refuses, leaving no output', async () => {
  for (const name of ['text.wav', 'empty.wav', 'video.mp4', 'playlist.m3u8']) {
    const out = join(dir, `${name}.once.pcm`);
    const running = startDecode(join(dir, name), out);
    const error = await expectUnsupported(running.probed);
    if (name === 'video.mp4') assert.is(error?.message, 'The file has no audio stream.');
    await expectUnsupported(running.decoded);
    assert.not.ok(existsSync(out), `${name}: no partial output`);
  }
});

test('startDecode: abort kills ffmpeg, rejects with the reason and removes the output', async () => {
  const out = join(dir, 'aborted-once.pcm');
  const running = startDecode(join(dir, 'speech.flac'), out);
  const reason = new Error('cancelled by the test');
  running.abort(reason);
  try {
    await running.decoded;
    assert.unreachable('expected the abort');
  } catch (error) {
    assert.is(error, reason);
  }
  assert.not.ok(existsSync(out));
});

test('the WAV decodes to exactly the original PCM', async () => {
  const out = join(dir, 'exact.pcm');
  const pcm = await decodeToPcm(join(dir, 'speech.wav'), out);
  assert.is(pcm.samples, SPEECH_SAMPLES);
  assert.ok(readFileSync(out).equals(readFileSync(SPEECH)));
  rmSync(out);
});

test('a text file named .wav, an empty file and a missing file are unsupported_format', async () => {
  await expectUnsupported(probeMedia(join(dir, 'text.wav')));
  await expectUnsupported(probeMedia(join(dir, 'empty.wav')));
  await expectUnsupported(probeMedia(join(dir, 'no-such-file.wav')));
  const out = join(dir, 'text.pcm');
  await expectUnsupported(decodeToPcm(join(dir, 'text.wav'), out));
  assert.not.ok(existsSync(out), 'no partial output is left');
});

test('a video without an audio stream is unsupported_format: no audio', async () => {
  const error = await expectUnsupported(probeMedia(join(dir, 'video.mp4')));
  assert.is(error?.message, 'The file has no audio stream.');
  const out = join(dir, 'video.pcm');
  await expectUnsupported(decodeToPcm(join(dir, 'video.mp4'), out));
  assert.not.ok(existsSync(out));
});

test('a playlist pointing at the network is refused without being followed', async () => {
  await expectUnsupported(probeMedia(join(dir, 'playlist.m3u8')));
  await expectUnsupported(decodeToPcm(join(dir, 'playlist.m3u8'), join(dir, 'playlist.pcm')));
});

test('an abort kills ffmpeg, rejects with the reason and removes the output', async () => {
  const controller = new AbortController();
  const out = join(dir, 'aborted.pcm');
  const decoding = decodeToPcm(join(dir, 'speech.flac'), out, { signal: controller.signal });
  const reason = new Error('cancelled by the test');
  controller.abort(reason);
  try {
    await decoding;
    assert.unreachable('expected the abort');
  } catch (error) {
    assert.is(error, reason);
  }
  assert.not.ok(existsSync(out));

  const already = AbortSignal.abort(reason);
  try {
    await probeMedia(join(dir, 'speech.wav'), { signal: already });
    assert.unreachable('expected the abort');
  } catch (error) {
    assert.is(error, reason);
  }
});

test.run();
