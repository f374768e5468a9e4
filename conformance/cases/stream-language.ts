// A stream session whose `session` frame leaves `language` out: the document's default is `ru`. A server that
// recognises Russian starts the session in `ru` (`session.started` echoes it: the default filled in); one that does
// not refuses it as `unsupported_language` naming `ru` (error + 4400). Either way the session shows the default
// applied, and stream_protocol_conformance judges which (the case `stream-default-language`).
import type { RunContext } from '../core/run-context.ts';
import { openSession } from './stream-session.ts';

export async function streamLanguageDefault(
  run: RunContext,
  create: (label: string) => Promise<string | undefined>,
): Promise<void> {
  const url = await create('create a session to start without a language');
  if (!url) return;
  const config = { type: 'session', sample_rate: run.audio.sampleRate, encoding: 'pcm_s16le' };
  const session = await openSession(
    url,
    (socket, frames) => {
      socket.send(JSON.stringify(config));
      // once the session has started (or was refused), end it
      const wait = setInterval(() => {
        if (socket.readyState !== socket.OPEN) return clearInterval(wait);
        if (!frames.some((f) => f.kind === 'text' && f.data.includes('"session.started"'))) return;
        clearInterval(wait);
        socket.send(JSON.stringify({ type: 'end' }));
      }, 50);
    },
    15_000,
  );
  run.trace(
    'stream_protocol_conformance',
    {
      scenario: 'a session frame without language',
      frames: session.frames,
      closeCode: session.closeCode,
      expectedClose: [1000, 4400],
      sentConfig: config,
    },
    'streaming',
    'createStreamSession',
    'stream-default-language',
  );
}
