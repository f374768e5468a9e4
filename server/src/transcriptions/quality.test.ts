// Recognition quality through the whole API (upload → queue → ffmpeg → engine → result): the LibriVox readings
// (real human speech, Debian pocketsphinx-testdata) within the WER bound, and diarization of two clearly
// different espeak-ng voices in one file into two speakers with the change point where the voices change.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ffmpegPath } from '../media/ffmpeg.ts';
import { databaseKinds, useHarness, type Harness } from '../test-support/harness.ts';
import { concat, HIGH_FEMALE, LOW_MALE, speechSpan, synthesize } from './diarization/test-audio.ts';
import { corpusWordErrorRate } from './engine/wer.ts';
import { TEST_DATA_DIR } from './engine/test-audio.ts';

const WER_BOUND = 0.35;

function wavOf(dir: string, name: string, pcm: Int16Array): string {
  const raw = join(dir, `${name}.raw`);
  writeFileSync(raw, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  const wav = join(dir, `${name}.wav`);
  execFileSync(ffmpegPath, ['-loglevel', 'error', '-y', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', raw, wav]);
  return wav;
}

async function transcribe(h: Harness, apiKey: string, path: string, fields: Record<string, string>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set('file', new Blob([readFileSync(path)]), 'audio.wav');
  const created = await h.v3(apiKey, 'POST', '/v3/transcriptions/async/create', { form });
  assert.is(created.status, 202, created.text);
  for (let i = 0; i < 600; i += 1) {
    const { body } = await h.v3(apiKey, 'GET', `/v3/transcriptions/status/${created.body.transcription_id}`);
    if (body.data.status === 'completed') return body.data;
    assert.not.ok(['failed', 'cancelled'].includes(body.data.status), JSON.stringify(body.data.error));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('not completed in 60 s');
}

for (const kind of databaseKinds) {
  const test = suite(`recognition quality through the API (${kind})`);
  const harness = useHarness(test, kind, { env: { SCRIBE_RATE_LIMIT_RPS: '1000', SCRIBE_WORKERS: '2' } });

  test(`LibriVox readings: corpus WER ≤ ${WER_BOUND * 100} %`, async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const dir = join(TEST_DATA_DIR, 'librivox');
    const references = new Map(
      readFileSync(join(dir, 'transcription'), 'utf8')
        .split('\n')
        .map((line) => /^<s> (.*) <\/s> \((.+)\)$/.exec(line.trim()))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [m[2]!, m[1]!]),
    );
    const pairs = await Promise.all(
      [...references.keys()].map(async (id) => {
        const task = await transcribe(h, account.apiKey, join(dir, `${id}.wav`), { language: 'en' });
        return { reference: references.get(id)!, hypothesis: task.result.text as string };
      }),
    );
    const wer = corpusWordErrorRate(pairs);
    console.log(`    LibriVox through the API: WER ${(wer.rate * 100).toFixed(1)} % over ${wer.referenceWords} words`);
    assert.ok(wer.rate <= WER_BOUND, `WER ${wer.rate}`);
  });

  test('two espeak-ng voices in one file → two speakers, the change within 0.5 s of the truth', async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const dir = mkdtempSync(join(tmpdir(), 'scribe-voices-'));
    const first = synthesize(dir, 'low', LOW_MALE, 'The quarterly numbers look good and the team met every target.');
    const second = synthesize(dir, 'high', HIGH_FEMALE, 'Thank you, let us move on to the plans for next year.');
    const { pcm, starts } = concat([first, second]);
    const truth = starts[1]! + speechSpan(second).start;
    const task = await transcribe(h, account.apiKey, wavOf(dir, 'two-voices', pcm), {
      language: 'en',
      diarization: 'true',
    });
    const { speakers, segments, words } = task.result;
    assert.equal(speakers, [
      { id: 'SPEAKER_00', name: 'Speaker 1' },
      { id: 'SPEAKER_01', name: 'Speaker 2' },
    ]);
    const change = segments.find((s: { speaker: string }) => s.speaker === 'SPEAKER_01').start as number;
    console.log(`    diarization through the API: change at ${change.toFixed(2)} s, truth ${truth.toFixed(2)} s`);
    assert.ok(Math.abs(change - truth) <= 0.5, `change ${change} vs ${truth}`);
    for (const word of words) assert.match(word.speaker, /^SPEAKER_0[01]$/);
    const srt = await h.v3(account.apiKey, 'GET', `/v3/transcriptions/result/${task.id}?format=srt`);
    assert.match(srt.text, /Speaker 1: .*\n\n2\n.*\nSpeaker 2: /s);
  });

  test.run();
}
