// `scribe models pull whisper-<name> [--mirror URL]`: the whisper model download (model-pull.ts) as a command, into
// the data dir the server uses (SCRIBE_DATA_DIR, default ./data). Its own flags, parsed here.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PullError, pullWhisperModel, WHISPER_MODELS } from './model-pull.ts';

export const pullUsage =
  'scribe models pull whisper-<name> [--mirror URL]  (a whisper.cpp model into the data dir; names: ' +
  `${Object.keys(WHISPER_MODELS).join(', ')})`;

export async function pullCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { mirror: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const name = /^whisper-(.+)$/.exec(positionals[0] ?? '')?.[1];
  if (!name || positionals.length !== 1) throw new Error(`Usage: ${pullUsage}`);
  try {
    await pullWhisperModel({
      name,
      dataDir: resolve(env.SCRIBE_DATA_DIR ?? './data'),
      ...(values.mirror ? { mirror: values.mirror } : {}),
    });
    return 0;
  } catch (error) {
    if (!(error instanceof PullError)) throw error;
    console.error(`scribe: ${error.message}`);
    return 1;
  }
}
