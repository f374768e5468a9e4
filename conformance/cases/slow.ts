// What `--slow` adds, side by side with the stateful phase (about a minute): a stream ticket opened 62 s after its
// creation is refused (error + 4401: the document's 60 s), a session with no frame for 32 s is closed 4408 while one
// that sends `keepalive` every 10 s outlives it and ends cleanly, and uploads over the sync limits made on the fly
// (a 26 MB file: file_too_large; 301 s of audio under 25 MB: duration_exceeded) are refused 400 with their codes.
// Also here, though the default streaming phase runs it (it ends at once on a server that reserves whole minutes): a
// session of an account whose funds cover half a minute of streaming, fed 5 s of audio at once and then 2 s every
// second, must be closed once its audio passes what the funds cover (error + 4402).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { wavOf } from '../core/audio.ts';
import { sleep } from '../core/rate-limiter.ts';
import type { RunContext } from '../core/run-context.ts';
import { openSession, type Session } from './stream-session.ts';
import { bodyOf, call, type Actor, needs } from './stateful/steps.ts';

const TICKET_TTL_S = 60;
const IDLE_S = 30;

type Provision = (balance: number, label: string) => Promise<Actor & { id: string }>;

export async function runSlow(run: RunContext, actor: Actor): Promise<void> {
  await Promise.all([expiredTicket(run, actor), idleSessions(run, actor), overLimitUploads(run, actor)]);
}

export async function pastTheReservation(run: RunContext, quoter: Actor, provision: Provision): Promise<void> {
  if (!needs(run, 'a stream past its reservation', ['calculatePrice', 'createStreamSession'])) return;
  const quote = await call(run, quoter, 'calculatePrice', {
    label: 'the price of one minute of streaming',
    phase: 'streaming',
    body: { type: 'stream', duration_seconds: 60 },
    expectation: { kind: 'status', statuses: [200], reason: 'a quote' },
  });
  const minute = bodyOf<{ amount?: number }>(quote)?.amount;
  if (typeof minute !== 'number' || minute <= 0) return;
  // half a minute, in whole cents
  const actor = await provision(Math.max(0.01, Math.floor(minute * 50) / 100), 'half-a-stream-minute');
  const url = await ticket(run, actor, 'create a session funded for half a minute');
  if (!url) return;
  const { sampleRate } = run.audio;
  const second = Buffer.alloc(sampleRate * 2); // silence
  const session = await openSession(
    url,
    (socket) => {
      socket.send(sessionFrame(run));
      for (let i = 0; i < 5; i++) socket.send(second);
      let sent = 5;
      const beat = setInterval(() => {
        if (socket.readyState !== socket.OPEN || sent >= 45) return clearInterval(beat);
        socket.send(second);
        socket.send(second);
        sent += 2;
      }, 1000);
    },
    60_000,
  );
  judge(
    run,
    'audio past what half a minute of funds covers',
    session,
    [4402],
    ['session.started', 'error'],
    'stream-past-funds',
  );
}

async function ticket(run: RunContext, actor: Actor, label: string): Promise<string | undefined> {
  const exchange = await call(run, actor, 'createStreamSession', {
    label,
    phase: 'streaming',
    expectation: { kind: 'status', statuses: [201], reason: 'a stream session with money on the account' },
  });
  return bodyOf<{ stream_url?: string }>(exchange)?.stream_url;
}

const sessionFrame = (run: RunContext) =>
  JSON.stringify({ type: 'session', language: 'en', sample_rate: run.audio.sampleRate, encoding: 'pcm_s16le' });

function judge(
  run: RunContext,
  scenario: string,
  session: Session,
  close: number[],
  types: string[],
  caseName?: string,
) {
  run.trace(
    'stream_protocol_conformance',
    { scenario, frames: session.frames, closeCode: session.closeCode, expectedClose: close, expectedTypes: types },
    'streaming',
    'createStreamSession',
    caseName,
  );
}

async function expiredTicket(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'an expired stream ticket', ['createStreamSession'])) return;
  const url = await ticket(run, actor, 'create a ticket to let expire');
  if (!url) return;
  await sleep((TICKET_TTL_S + 2) * 1000);
  const session = await openSession(url, () => undefined, 15_000);
  judge(run, `a ticket ${TICKET_TTL_S + 2} s old`, session, [4401], ['error'], 'expired-ticket');
}

async function idleSessions(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'idle stream sessions', ['createStreamSession'])) return;
  const [idle, kept] = await Promise.all([
    ticket(run, actor, 'create a session to leave idle'),
    ticket(run, actor, 'create a session to keep alive'),
  ]);
  await Promise.all([
    idle &&
      openSession(idle, (socket) => socket.send(sessionFrame(run)), (IDLE_S + 15) * 1000).then((session) =>
        judge(run, `no frame for ${IDLE_S} s`, session, [4408], ['session.started', 'error'], 'idle-stream'),
      ),
    kept &&
      openSession(
        kept,
        (socket) => {
          socket.send(sessionFrame(run));
          const started = Date.now();
          const beat = setInterval(() => {
            if (socket.readyState !== socket.OPEN) return clearInterval(beat);
            if (Date.now() - started < (IDLE_S + 10) * 1000) return socket.send(JSON.stringify({ type: 'keepalive' }));
            clearInterval(beat);
            socket.send(JSON.stringify({ type: 'end' }));
          }, 10_000);
        },
        (IDLE_S + 30) * 1000,
      ).then((session) =>
        judge(
          run,
          `keepalive every 10 s for ${IDLE_S + 10} s`,
          session,
          [1000],
          ['session.started', 'session.completed'],
        ),
      ),
  ]);
}

async function overLimitUploads(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'uploads over the sync limits', ['createSyncTranscription'])) return;
  const operation = run.spec.byId('createSyncTranscription');
  const maxBytes = Number(operation.limits.max_file_bytes ?? 25 * 1024 * 1024);
  const maxSeconds = Number(operation.limits.max_duration_seconds ?? 300);
  const dir = join(dirname(run.audio.path), 'over-limits');
  mkdirSync(dir, { recursive: true });
  // silence at 8 kHz: 301 s is 4.8 MB, far under the size limit, so only its length is over
  const rate = 8000;
  const long = join(dir, `over-${maxSeconds + 1}s.wav`);
  writeFileSync(long, wavOf(Buffer.alloc((maxSeconds + 1) * rate * 2), rate));
  const large = join(dir, 'over-size.wav');
  writeFileSync(large, wavOf(Buffer.alloc(maxBytes + 1024 * 1024), run.audio.sampleRate));
  const uploads = [
    {
      file: large,
      code: 'file_too_large',
      what: `a file of ${maxBytes + 1024 * 1024 + 44} bytes`,
      case: 'over-size-upload',
    },
    { file: long, code: 'duration_exceeded', what: `${maxSeconds + 1} s of audio`, case: 'over-duration-upload' },
  ];
  for (const upload of uploads)
    await run.exchange(
      {
        method: 'POST',
        path: operation.path,
        headers: {},
        body: {
          kind: 'multipart',
          parts: [
            { name: 'file', file: upload.file, filename: 'long.wav', contentType: 'audio/wav' },
            { name: 'language', value: 'en' },
          ],
        },
      },
      {
        phase: 'stateful',
        label: `sync create with ${upload.what}`,
        operation,
        credentials: actor,
        case: upload.case,
        expectation: {
          kind: 'status',
          statuses: [400],
          reason: `${upload.what} (over the sync limit)`,
          code: upload.code,
        },
      },
    );
}
