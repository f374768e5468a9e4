// Scenario: what a stream session holds and charges, seen through the balance. A session reserves funds when it
// is created (the ticket still unused); a clean session (`session`, the audio, `end`) is captured once for the
// cost its `session.completed` reports, and its reservation released; a session whose connection drops after some
// audio is charged nothing and its reservation returned (the document's stream rule 4). The release of a ticket
// that expires unused is not observed: the ticket lives 60 s, longer than this whole phase.
import type { BalanceReading } from '../../checks/reservation-consistency.ts';
import { openSession } from '../stream-session.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { ServerFrame } from '../../checks/stream-protocol-conformance.ts';
import { ledgerFor, readBalance, settledBalance } from './reservations.ts';
import { bodyOf, call, needs, type Actor } from './steps.ts';

const cents = (amount: number) => Math.round(amount * 100);

async function createSession(run: RunContext, actor: Actor, label: string) {
  const created = await call(run, actor, 'createStreamSession', {
    label,
    expectation: { kind: 'status', statuses: [201], reason: 'a stream session with money on the account' },
  });
  const session = bodyOf<{ session_id?: string; stream_url?: string }>(created);
  return session?.session_id && session.stream_url ? { id: session.session_id, url: session.stream_url } : undefined;
}

interface Completed {
  cost?: number;
  minutes?: { durationMinutes: number; billed: number };
}

/** What `session.completed` reports: the cost, and the duration (seconds) with the minutes billed for it. */
function completedOf(frames: ServerFrame[]): Completed {
  for (const frame of frames) {
    if (frame.kind !== 'text') continue;
    try {
      const message = JSON.parse(frame.data) as {
        type?: unknown;
        cost?: unknown;
        duration?: unknown;
        minutes_billed?: unknown;
      };
      if (message.type !== 'session.completed') continue;
      return {
        cost: typeof message.cost === 'number' ? message.cost : undefined,
        minutes:
          typeof message.duration === 'number' && typeof message.minutes_billed === 'number'
            ? { durationMinutes: message.duration / 60, billed: message.minutes_billed }
            : undefined,
      };
    } catch {
      // an unparsable frame is stream_protocol_conformance's finding
    }
  }
  return {};
}

export async function streamReservation(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'stream reservations', ['createStreamSession', 'calculatePrice'])) return;
  const { pcm, sampleRate } = run.audio;
  const sessionFrame = JSON.stringify({
    type: 'session',
    language: 'en',
    sample_rate: sampleRate,
    encoding: 'pcm_s16le',
  });
  const chunk = sampleRate / 5; // 100 ms of 16-bit samples

  const before = await readBalance(run, actor, 'before a stream session');
  const clean = before && (await createSession(run, actor, 'create a stream session to bill'));
  if (!before || !clean) return;
  const holding = await readBalance(run, actor, 'while the ticket is unused');
  const { frames } = await openSession(clean.url, (socket) => {
    socket.send(sessionFrame);
    for (let at = 0; at < pcm.length; at += chunk) socket.send(pcm.subarray(at, at + chunk));
    socket.send(JSON.stringify({ type: 'end' }));
  });
  const { cost, minutes } = completedOf(frames);
  const after = await settledBalance(
    run,
    actor,
    'after a clean stream session',
    (r) => cents(r.available) - cents(before.available) === cents(r.balance) - cents(before.balance),
  );
  run.trace(
    'reservation_consistency',
    {
      subject: `stream session ${clean.id}`,
      outcome: 'captured',
      cost,
      minutes,
      before,
      holding: holding ? [holding] : [],
      after,
      later: await readBalance(run, actor, 'after the clean session, again'),
      ledger: await ledgerFor(run, actor, clean.id),
    },
    'stateful',
    'createStreamSession',
  );

  const beforeDrop: BalanceReading | undefined = after ?? (await readBalance(run, actor, 'before a dropped session'));
  const dropped = beforeDrop && (await createSession(run, actor, 'create a stream session to drop'));
  if (!beforeDrop || !dropped) return;
  const holdingDrop = await readBalance(run, actor, 'while the second ticket is unused');
  await openSession(dropped.url, (socket) => {
    socket.send(sessionFrame);
    socket.send(pcm.subarray(0, chunk * 5));
    setTimeout(() => socket.terminate(), 300);
  });
  run.trace(
    'reservation_consistency',
    {
      subject: `stream session ${dropped.id}`,
      outcome: 'released',
      before: beforeDrop,
      holding: holdingDrop ? [holdingDrop] : [],
      after: await settledBalance(
        run,
        actor,
        'after a dropped session',
        (r) => cents(r.available) === cents(beforeDrop.available),
      ),
      ledger: await ledgerFor(run, actor, dropped.id),
    },
    'stateful',
    'createStreamSession',
  );
}
