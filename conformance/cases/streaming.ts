// Phase "streaming": the AsyncAPI session over a real WebSocket. A session is created over HTTP, the ticket URL is
// opened, `session` is sent, the audio follows in 100 ms binary frames and `end` closes it: the server's frames
// must be documented messages that validate, in order session.started … session.completed, then close 1000. The
// same ticket a second time must be refused (error frame + 4401), and audio before `session` is 4400. A third
// session sends a `keepalive`, a second of audio (mid-sentence) and `finalize`, and must get a `transcript.final`
// before the suite sends anything else; a fourth sends 40 s of audio at once, more than the 30 s ahead of real time
// the document allows (error + 4429). Then a `session` frame without language (its default applied:
// stream-language.ts) and one ticket opened twice at once (one claim wins: stream-ticket-race.ts). With throwaway accounts, a session whose funds cover half a minute is closed
// 4402 once its audio passes them (slow.ts: pastTheReservation). While the server answers 501 for stream create, the phase is reported as
// not run.
import type { StreamTrace } from '../checks/stream-protocol-conformance.ts';
import type { RunContext } from '../core/run-context.ts';
import { pastTheReservation } from './slow.ts';
import { openSession, type Session } from './stream-session.ts';
import { streamLanguageDefault } from './stream-language.ts';
import { streamTicketRace } from './stream-ticket-race.ts';
import { bodyOf, call } from './stateful/steps.ts';

export async function runStreaming(run: RunContext): Promise<void> {
  if (!run.isSelected('createStreamSession')) {
    run.recorder.skipped({
      what: 'stream_protocol_conformance',
      phase: 'streaming',
      reason: '--include/--exclude leaves out createStreamSession',
    });
    return;
  }
  const actor = run.accounts.provision ? await run.accounts.provision(100, 'stream') : run.accounts.main;
  const create = async (label: string) => {
    const exchange = await call(run, actor, 'createStreamSession', {
      label,
      phase: 'streaming',
      expectation: { kind: 'status', statuses: [201], reason: 'a stream session with money on the account' },
    });
    return bodyOf<{ stream_url?: string }>(exchange)?.stream_url;
  };
  const url = await create('create a stream session');
  if (!url) {
    if (!run.recorder.unimplemented.has('createStreamSession'))
      run.recorder.skipped({
        what: 'stream_protocol_conformance',
        phase: 'streaming',
        reason: 'no stream session could be created',
      });
    else
      run.recorder.skipped({
        what: 'stream_protocol_conformance',
        phase: 'streaming',
        reason: 'createStreamSession answered 501',
      });
    return;
  }
  const { pcm, sampleRate } = run.audio;
  const cleanConfig = { type: 'session', language: 'en', sample_rate: sampleRate, encoding: 'pcm_s16le' };
  const clean = await openSession(url, (socket) => {
    socket.send(JSON.stringify(cleanConfig));
    socket.send(JSON.stringify({ type: 'keepalive' }));
    const frame = sampleRate / 5; // 100 ms of 16-bit samples
    for (let at = 0; at < pcm.length; at += frame) socket.send(pcm.subarray(at, at + frame));
    socket.send(JSON.stringify({ type: 'end' }));
  });
  const trace = (
    scenario: string,
    session: Session,
    expectedClose: number[],
    expectedTypes?: string[],
    sentConfig?: Record<string, unknown>,
  ): StreamTrace => ({
    scenario,
    frames: session.frames,
    closeCode: session.closeCode,
    expectedClose,
    expectedTypes,
    sentConfig,
  });
  run.trace(
    'stream_protocol_conformance',
    { ...trace('clean session', clean, [1000], ['session.started', 'session.completed'], cleanConfig), url },
    'streaming',
    'createStreamSession',
  );
  const reused = await openSession(url, () => undefined, 15_000);
  run.trace(
    'stream_protocol_conformance',
    trace('reused ticket', reused, [4401], ['error']),
    'streaming',
    'createStreamSession',
  );
  const second = await create('create a session for a bad first frame');
  if (second) {
    const bad = await openSession(second, (socket) => socket.send(pcm.subarray(0, 3200)), 15_000);
    run.trace(
      'stream_protocol_conformance',
      trace('audio before session', bad, [4400], ['error']),
      'streaming',
      'createStreamSession',
    );
  }
  const third = await create('create a session to finalize');
  if (third) {
    const finalized = await openSession(
      third,
      (socket, frames) => {
        socket.send(
          JSON.stringify({ type: 'session', language: 'en', sample_rate: sampleRate, encoding: 'pcm_s16le' }),
        );
        socket.send(pcm.subarray(0, Math.min(pcm.length, sampleRate * 2))); // one second, mid-sentence
        socket.send(JSON.stringify({ type: 'finalize' }));
        // only a final the finalize asked for lets the session end cleanly; without one the suite closes it
        const deadline = Date.now() + 15_000;
        const wait = setInterval(() => {
          const final = frames.some((f) => f.kind === 'text' && f.data.includes('"transcript.final"'));
          if (!final && Date.now() < deadline) return;
          clearInterval(wait);
          if (final) socket.send(JSON.stringify({ type: 'end' }));
          else socket.close(1000);
        }, 50);
      },
      30_000,
    );
    run.trace(
      'stream_protocol_conformance',
      trace('finalize mid-sentence', finalized, [1000], ['session.started', 'transcript.final', 'session.completed']),
      'streaming',
      'createStreamSession',
    );
  }
  const fourth = await create('create a session to flood');
  if (fourth) {
    const flooded = await openSession(
      fourth,
      (socket) => {
        socket.send(
          JSON.stringify({ type: 'session', language: 'en', sample_rate: sampleRate, encoding: 'pcm_s16le' }),
        );
        const second = Buffer.alloc(sampleRate * 2); // silence
        for (let i = 0; i < AHEAD_S + 10 && socket.readyState === socket.OPEN; i++) socket.send(second);
      },
      30_000,
    );
    run.trace(
      'stream_protocol_conformance',
      trace(`${AHEAD_S + 10} s of audio at once`, flooded, [4429], ['session.started', 'error']),
      'streaming',
      'createStreamSession',
      'stream-flood',
    );
  }
  await streamLanguageDefault(run, create);
  await streamTicketRace(run, create);
  if (run.accounts.provision) await pastTheReservation(run, actor, run.accounts.provision);
}

/** How far ahead of real time the document lets a client send audio. */
const AHEAD_S = 30;
