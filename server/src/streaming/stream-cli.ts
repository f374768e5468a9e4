// `scribe stream FILE`: the 30-second way to watch streaming work. Creates a session on a running server (Bearer key
// from --key or SCRIBE_API_KEY), sends the file's audio over the WebSocket in 100 ms chunks paced in real time (or
// as fast as the server takes it with --fast), prints the running partial on one line and each final below it, then
// ends the session and prints what it cost. A `.raw`/`.pcm` file is sent as is (s16le mono at --sample-rate); any
// other file is decoded to 16 kHz PCM with the project's ffmpeg first.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import type {
  StreamErrorFrame,
  StreamSession,
  StreamSessionCompleted,
  StreamSessionStarted,
  StreamTranscriptFinal,
  StreamTranscriptPartial,
} from '../../../generated/client/types.gen.ts';
import { decodeToPcm } from '../media/ffmpeg.ts';

type ServerFrame =
  StreamSessionStarted | StreamTranscriptPartial | StreamTranscriptFinal | StreamSessionCompleted | StreamErrorFrame;

export const streamUsage =
  'scribe stream FILE [--url http://127.0.0.1:8080] [--key sk_live_…] [--language en] [--sample-rate 16000] [--fast]';

async function pcmOf(file: string, sampleRate: number): Promise<{ pcm: Buffer; rate: number }> {
  if (/\.(raw|pcm)$/i.test(file)) return { pcm: await readFile(file), rate: sampleRate };
  const dir = await mkdtemp(join(tmpdir(), 'scribe-stream-'));
  try {
    const out = join(dir, 'audio.pcm');
    await decodeToPcm(file, out);
    return { pcm: await readFile(out), rate: 16_000 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function streamCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string', default: process.env.SCRIBE_URL ?? 'http://127.0.0.1:8080' },
      key: { type: 'string' },
      language: { type: 'string', default: 'en' },
      'sample-rate': { type: 'string', default: '16000' },
      fast: { type: 'boolean', default: false },
    },
  });
  const [file] = positionals;
  const key = values.key ?? process.env.SCRIBE_API_KEY;
  if (!file || !key) throw new Error(`Usage: ${streamUsage}\n(the key may also come from SCRIBE_API_KEY)`);
  const { pcm, rate } = await pcmOf(file, Number(values['sample-rate']));

  const response = await fetch(new URL('/v3/transcriptions/stream/create', values.url), {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}` },
  });
  const body = (await response.json()) as StreamSession & { error?: { code: string; message: string } };
  if (response.status !== 201) throw new Error(`${body.error?.code ?? response.status}: ${body.error?.message ?? ''}`);

  const ws = new WebSocket(body.stream_url);
  const tty = process.stdout.isTTY;
  let partialShown = false;
  const clearPartial = () => {
    if (partialShown && tty) process.stdout.write('\r\x1b[2K');
    partialShown = false;
  };
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  let exitCode = 0;
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as ServerFrame;
    switch (frame.type) {
      case 'transcript.partial':
        if (!tty) return;
        clearPartial();
        process.stdout.write(`… ${frame.text}`);
        partialShown = true;
        return;
      case 'transcript.final':
        clearPartial();
        if (frame.text) console.log(`[${frame.start.toFixed(2)}–${frame.end.toFixed(2)}] ${frame.text}`);
        return;
      case 'session.completed':
        clearPartial();
        console.log(
          `— ${frame.duration.toFixed(2)} s of audio, ${frame.minutes_billed} min billed, cost ${frame.cost}`,
        );
        return;
      case 'error':
        clearPartial();
        console.error(`error ${frame.error.code}: ${frame.error.message}`);
        exitCode = 1;
        return;
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'session', language: values.language, sample_rate: rate }));

  const chunkBytes = (rate / 10) * 2;
  const started = performance.now();
  // --fast runs ahead of real time, but stays 5 s inside the server's 30-second bound (it would close with 4429).
  const lead = values.fast ? 25_000 : 0;
  for (let offset = 0, index = 0; offset < pcm.length && ws.readyState === WebSocket.OPEN; offset += chunkBytes) {
    const due = started + index++ * 100 - lead - performance.now();
    if (due > 0) await sleep(due);
    ws.send(pcm.subarray(offset, offset + chunkBytes));
  }
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'end' }));
  const { code, reason } = await closed;
  if (code !== 1000) {
    if (exitCode === 0) console.error(`connection closed with ${code} ${reason}`);
    return 1;
  }
  return exitCode;
}
