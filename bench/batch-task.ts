// The batch load that bench/batch-load.ts and row (e) of bench/stream.ts run beside what they measure: async
// transcriptions of the LibriVox readings (joined, ≈ 25 s), each through the whole API from upload to `completed`.
import { wavHeader } from '../server/src/transcriptions/engine/wav.ts';
import { librivoxRecordings } from '../server/src/transcriptions/engine/test-audio.ts';

/** The LibriVox readings joined, as a 16 kHz mono WAV file's bytes. */
export function librivoxWav(): Buffer<ArrayBuffer> {
  const pcm = Buffer.concat(
    librivoxRecordings().map((r) => Buffer.from(r.pcm.buffer, r.pcm.byteOffset, r.pcm.byteLength)),
  );
  return Buffer.concat([wavHeader(pcm.length), pcm]);
}

/** Uploads `wav` as an async task and waits for it (status polled at 4 Hz, a client's usual pace); its id. */
export async function transcribeAsync(base: string, apiKey: string, wav: Buffer<ArrayBuffer>): Promise<string> {
  const form = new FormData();
  form.set('language', 'en');
  form.set('file', new Blob([wav]), 'readings.wav');
  const auth = { Authorization: `Bearer ${apiKey}` };
  const reply = await fetch(`${base}/v3/transcriptions/async/create`, { method: 'POST', headers: auth, body: form });
  const body = (await reply.json()) as { transcription_id?: string };
  if (!reply.ok) throw new Error(`batch task upload: ${reply.status} ${JSON.stringify(body)}`);
  const id = body.transcription_id!;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const status = await fetch(`${base}/v3/transcriptions/status/${id}`, { headers: auth });
    const { data } = (await status.json()) as { data: { status: string } };
    if (data.status === 'completed') return id;
    if (data.status === 'failed' || data.status === 'cancelled') throw new Error(`batch task ${id} ${data.status}`);
  }
}
