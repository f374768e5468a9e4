// One ticket opened by two connections at once: the claim is atomic, so exactly one of them gets the session
// (session.started … session.completed, 1000) and the other is refused (error + 4401), whichever comes first. Each
// connection sends its `session` frame at once and `end` only when both have been answered (or closed), so both are
// open together while the server claims the ticket (the case `ticket-race`).
import type WebSocket from 'ws';
import type { RunContext } from '../core/run-context.ts';
import { openSession, type Session } from './stream-session.ts';
import type { ServerFrame } from '../checks/stream-protocol-conformance.ts';

export async function streamTicketRace(
  run: RunContext,
  create: (label: string) => Promise<string | undefined>,
): Promise<void> {
  const url = await create('create a session to open twice at once');
  if (!url) return;
  const config = JSON.stringify({
    type: 'session',
    language: 'en',
    sample_rate: run.audio.sampleRate,
    encoding: 'pcm_s16le',
  });
  const answered: Array<() => boolean> = [];
  const script = (socket: WebSocket, frames: ServerFrame[]) => {
    socket.send(config);
    answered.push(() => frames.length > 0 || socket.readyState !== socket.OPEN);
    const wait = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return clearInterval(wait);
      if (answered.length < 2 || !answered.every((done) => done())) return;
      clearInterval(wait);
      socket.send(JSON.stringify({ type: 'end' }));
    }, 50);
  };
  const pair = await Promise.all([openSession(url, script, 15_000), openSession(url, script, 15_000)]);
  // the refused one is the one closed 4401; when neither was, the second had to be
  const refused = pair.findIndex((s) => s.closeCode === 4401);
  const loser: Session = pair[refused < 0 ? 1 : refused]!;
  const winner: Session = pair[refused < 0 ? 0 : 1 - refused]!;
  const judge = (scenario: string, session: Session, close: number[], types: string[]) =>
    run.trace(
      'stream_protocol_conformance',
      { scenario, frames: session.frames, closeCode: session.closeCode, expectedClose: close, expectedTypes: types },
      'streaming',
      'createStreamSession',
      'ticket-race',
    );
  judge(
    'one ticket opened twice at once: the claim that won',
    winner,
    [1000],
    ['session.started', 'session.completed'],
  );
  judge('one ticket opened twice at once: the claim that lost', loser, [4401], ['error']);
}
