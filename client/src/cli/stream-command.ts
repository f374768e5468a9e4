// `scribe-client stream FILE`: plays a file through the stream protocol in real time (100 ms chunks; --fast sends
// ahead of real time), the running partial redrawn in place on a terminal and each final on its own line, then
// ends the session and prints what it cost.
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import type { Client } from '../../../generated/client/client/index.ts';
import { connectStream } from '../connect-stream.ts';
import { sendPacedAudio } from '../send-paced-audio.ts';
import { choiceLine, chooseLanguage } from './choose-language.ts';
import { CliError } from './cli-error.ts';
import { readPcm } from './pcm-audio.ts';

export const streamUsage = 'scribe-client stream FILE [--language CODE] [--sample-rate 16000 (raw PCM)] [--fast]';

export async function streamCommand(client: Client, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      language: { type: 'string' },
      'sample-rate': { type: 'string', default: '16000' },
      fast: { type: 'boolean', default: false },
    },
  });
  const [file] = positionals;
  if (!file || positionals.length > 1) throw new CliError(`Usage: ${streamUsage}`, 2);
  const rawRate = Number(values['sample-rate']);
  if (!Number.isInteger(rawRate) || rawRate <= 0) throw new CliError('--sample-rate must be a positive integer', 2);
  const { pcm, sampleRate } = await readPcm(file, rawRate);

  const choice = await chooseLanguage(client, values.language);
  process.stderr.write(choiceLine(choice));
  const connection = await connectStream(client, {
    session: { language: choice.language, sample_rate: sampleRate, interim_results: true },
    WebSocket,
  });
  const tty = process.stdout.isTTY;
  const printing = (async () => {
    let partialShown = false;
    for await (const result of connection) {
      if (partialShown) process.stdout.write('\r\x1b[2K');
      partialShown = false;
      if (result.type === 'transcript.partial') {
        if (tty && result.text) {
          process.stdout.write(`… ${result.text}`);
          partialShown = true;
        }
      } else if (result.text) {
        process.stdout.write(`[${result.start.toFixed(2)}–${result.end.toFixed(2)}] ${result.text}\n`);
      }
    }
    if (partialShown) process.stdout.write('\r\x1b[2K');
  })();
  printing.catch(() => undefined); // its failure is end()'s failure, reported once below

  // --fast runs ahead of real time but stays inside the server's bound on how far audio may lead the clock (30 s).
  await sendPacedAudio(connection, pcm, { sampleRate, leadMs: values.fast ? 25_000 : 0 });
  const completed = await connection.end();
  await printing;
  process.stdout.write(
    `— ${completed.duration.toFixed(2)} s of audio, ${completed.minutes_billed} min billed, cost ${completed.cost}\n`,
  );
  return 0;
}
