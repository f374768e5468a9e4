// One WebSocket connection of the stream protocol (asyncapi/asyncapi.yaml), from the ticket to the close:
//   claiming → (ticket claimed) awaiting-session → (valid `session`) streaming → (`end`) ending → closed.
// Frames are handled one after the other in arrival order (a promise chain), so a `finalize` or `end` always follows
// the audio sent before it. Only `end` leads to `session.completed` and close 1000; every other ending is an `error`
// frame with a documented close code, then the close, or the client's own close. Whether an ending charges is
// session-billing.ts; a charged ending captures the audio the engine has transcribed by then (audio still queued for
// the engine is neither transcribed nor charged), and is recorded before the close frame goes out. The connection's clocks
// (idle timeout, audio ahead of real time) are the process's monotonic clock, not the app's settable one (that one
// decides ticket expiry).
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type {
  StreamAppliedConfig,
  StreamSessionCompleted,
  StreamSessionConfig,
  StreamSessionStarted,
} from '../../../generated/client/types.gen.ts';
import type { StreamingConfig } from '../config.ts';
import { fromMinor } from '../db/rows.ts';
import type { RecognizerEvent } from './recognizer.ts';
import type { StreamService } from './session-service.ts';
import type { StreamSessionRow } from './session-store.ts';
import type { StreamChannel, StreamEngine } from './stream-engine.ts';
import type { Refusal } from './stream-socket.ts';
import { clientCloseCharges, serverCloseCharges } from './session-billing.ts';
import { appliedConfig, errorFrame, FrameError, parseClientFrame } from './stream-messages.ts';

/** The contract's limit of one frame (StreamAudio, StreamCloseCode). */
export const MAX_FRAME_BYTES = 1024 * 1024;
const TICKET = /^[A-Za-z0-9_-]+$/;

type State = 'claiming' | 'awaiting-session' | 'streaming' | 'ending' | 'closed';

export interface ConnectionDeps {
  service: StreamService;
  engine: StreamEngine;
  config: StreamingConfig;
  logger: Logger;
}

export interface StreamConnection {
  /** Ends the connection from the server's side (shutdown): error frame, close 1001, reservation released. */
  shutdown(): Promise<void>;
  /** ws refused a frame the client sent (stream-socket.ts): the contract's error frame and 4400. */
  refuse(refusal: Refusal): void;
  /** The account was blocked: what was transcribed is charged, then an `error` frame (user_blocked) and 4401. */
  block(): void;
  /** The claimed session's id (undefined before the ticket is claimed). */
  readonly sessionId: string | undefined;
  /** Settles when the connection's session is settled (completed or released). */
  readonly done: Promise<void>;
}

export function handleConnection(ws: WebSocket, ticket: string | null, deps: ConnectionDeps): StreamConnection {
  const { service, engine, config, logger } = deps;
  let state: State = 'claiming';
  let row: StreamSessionRow | undefined;
  let applied: StreamAppliedConfig | undefined;
  let channel: StreamChannel | undefined;
  let bytes = 0;
  /** Audio bytes handed to the engine. */
  let pushed = 0;
  let carry: Buffer | undefined;
  let startedAt = 0;
  let chain: Promise<void> = Promise.resolve();
  let settle!: () => void;
  const done = new Promise<void>((resolve) => (settle = resolve));
  let idle: NodeJS.Timeout | undefined;
  const lease = setInterval(
    () => {
      if (row && state !== 'closed') void service.renew(row).catch(() => undefined);
    },
    Math.max(1000, Math.floor(config.leaseMs / 3)),
  );
  lease.unref();

  const duration = () => (applied ? bytes / (2 * applied.sample_rate) : 0);
  /** Seconds of audio the engine has processed (read before the channel is closed). */
  const transcribed = () =>
    applied ? Math.max(0, pushed - (channel?.pendingBytes ?? 0)) / (2 * applied.sample_rate) : 0;
  const send = (frame: object) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };

  function armIdle(): void {
    clearTimeout(idle);
    if (state === 'ending' || state === 'closed') return;
    idle = setTimeout(() => {
      // Audio still being recognised is the server's work, not a silent client: wait until it is done.
      if (channel?.busy) return armIdle();
      const seconds = Math.round(config.idleTimeoutMs / 100) / 10;
      void fail(
        new FrameError('invalid_state', `No frame received for ${seconds} seconds; the session timed out.`, null, 4408),
      );
    }, config.idleTimeoutMs);
    idle.unref();
  }

  function stopTimers(): void {
    clearTimeout(idle);
    clearInterval(lease);
  }

  /**
   * Settles an ending session: a charged ending of a started session captures `seconds` (the same capture as `end`);
   * an uncharged one, or one that never got its `session` frame (no audio), only releases.
   */
  async function settleSession(session: StreamSessionRow, charged: boolean, reason: string, seconds: number) {
    if (charged && applied) await service.complete(session, seconds, reason);
    else await service.drop(session, reason, applied ? seconds : null);
  }

  /**
   * The session settled (charged or released per session-billing.ts), then the error frame and the close, so a client
   * that sees the close code can already read the charge. `closeNow` sends them first: ws refused a frame and expects
   * the close before its handler returns (stream-socket.ts).
   */
  async function fail(error: FrameError, closeNow = false): Promise<void> {
    if (state === 'closed') return;
    state = 'closed';
    stopTimers();
    const code = error.closeCode ?? 1011;
    const seconds = transcribed();
    channel?.close();
    const close = () => {
      send(errorFrame(error));
      ws.close(code, error.code);
    };
    if (closeNow) close();
    try {
      if (row) await settleSession(row, serverCloseCharges(code), String(code), seconds);
    } catch (err) {
      logger.error({ err, session: row?.id }, 'stream session: settling failed (the sweeper releases it)');
    } finally {
      if (!closeNow) close();
      settle();
    }
  }

  function onResults(events: RecognizerEvent[]): void {
    if (state === 'streaming' || state === 'ending') for (const event of events) send(event);
  }

  async function claim(): Promise<void> {
    if (!ticket || !TICKET.test(ticket)) return invalidTicket();
    const claimed = await service.claim(ticket);
    if (state === 'closed') {
      // The client left while the claim ran: the session it claimed is released.
      if (claimed.ok) await service.drop(claimed.session, 'client_closed');
      return;
    }
    if (!claimed.ok) {
      if (claimed.reason === 'blocked')
        return fail(new FrameError('user_blocked', 'This account is blocked.', null, 4401));
      if (claimed.reason === 'too_many')
        return fail(
          new FrameError('too_many_concurrent_jobs', 'Too many open stream sessions for this account.', null, 4429),
        );
      return invalidTicket();
    }
    row = claimed.session;
    state = 'awaiting-session';
  }

  function invalidTicket(): Promise<void> {
    return fail(
      new FrameError('invalid_api_key', 'The stream ticket is invalid, already used or expired.', 'ticket', 4401),
    );
  }

  async function onSession(frame: StreamSessionConfig): Promise<void> {
    const settings = appliedConfig(frame);
    if (!engine.supports(settings.language)) {
      throw new FrameError('unsupported_language', engine.unsupportedLanguage(settings.language), 'language', 4400);
    }
    // The streaming engine does not tell speakers apart: the applied settings say so (session.started echoes them).
    settings.diarization = false;
    clearTimeout(idle); // the time the engine takes to start is the server's, not the client's silence
    await service.start(row!, settings);
    try {
      channel = await engine.open(
        row!.id,
        {
          language: settings.language,
          sampleRate: settings.sample_rate,
          interimResults: settings.interim_results,
          wordTimestamps: settings.word_timestamps,
          endpointing: settings.endpointing,
        },
        {
          onEvents: onResults,
          onFailure: (message) => {
            logger.error({ session: row?.id, message }, 'stream recognition failed');
            void fail(new FrameError('engine_unavailable', 'The recognition engine failed.', null, 1011));
          },
        },
      );
    } catch (err) {
      logger.error({ err, session: row?.id }, 'stream engine unavailable');
      throw new FrameError('engine_unavailable', 'The recognition engine is not available.', null, 1011);
    }
    if (state !== 'awaiting-session') {
      channel.close();
      return;
    }
    applied = settings;
    state = 'streaming';
    startedAt = performance.now();
    const started: StreamSessionStarted = { type: 'session.started', session_id: row!.id, config: settings };
    send(started);
    armIdle();
  }

  async function onAudio(data: Buffer): Promise<void> {
    if (state !== 'streaming' || !channel || !applied) return;
    let pcm = carry ? Buffer.concat([carry, data]) : data;
    carry = undefined;
    if (pcm.length % 2 === 1) {
      carry = Buffer.from(pcm.subarray(pcm.length - 1));
      pcm = pcm.subarray(0, pcm.length - 1);
    }
    bytes += data.length;
    const ahead = duration() - (performance.now() - startedAt) / 1000;
    const backlog = channel.pendingBytes / (2 * applied.sample_rate);
    if (ahead > config.maxAheadSeconds || backlog > config.maxAheadSeconds) {
      throw new FrameError(
        'rate_limit_exceeded',
        `Audio arrives more than ${config.maxAheadSeconds} seconds ahead of real time.`,
        null,
        4429,
      );
    }
    while (duration() > row!.reserved_seconds) {
      if (!(await service.extend(row!))) {
        throw new FrameError(
          'insufficient_balance',
          'The balance does not cover more audio in this session.',
          null,
          4402,
        );
      }
    }
    if (pcm.length > 0 && state === 'streaming') {
      pushed += pcm.length;
      channel.push(pcm);
    }
  }

  async function onEnd(): Promise<void> {
    state = 'ending';
    stopTimers();
    await channel!.end();
    if (state !== 'ending') return;
    const seconds = duration();
    const settled = await service.complete(row!, seconds);
    const completed: StreamSessionCompleted = {
      type: 'session.completed',
      session_id: row!.id,
      duration: seconds,
      minutes_billed: settled.minutesBilled,
      cost: fromMinor(settled.costMinor),
    };
    state = 'closed';
    send(completed);
    ws.close(1000);
    settle();
  }

  async function onFrame(data: Buffer, binary: boolean): Promise<void> {
    if (state === 'ending' || state === 'closed') return;
    if (data.length > MAX_FRAME_BYTES)
      throw new FrameError('invalid_parameter', 'A frame may hold at most 1 MiB.', null, 4400);
    if (binary) {
      if (state === 'awaiting-session')
        throw new FrameError('invalid_state', 'Audio arrived before the session frame.', null, 4400);
      return onAudio(data);
    }
    const frame = parseClientFrame(data.toString('utf8'));
    if (state === 'awaiting-session') {
      if (frame.type !== 'session')
        throw new FrameError('invalid_state', 'The first frame must be a session frame.', 'type', 4400);
      return onSession(frame as unknown as StreamSessionConfig);
    }
    switch (frame.type) {
      case 'session':
        send(
          errorFrame(
            new FrameError(
              'invalid_state',
              'The session is already configured; the frame was ignored.',
              'type',
              undefined,
            ),
          ),
        );
        return;
      case 'keepalive':
        return;
      case 'finalize':
        channel!.finalize();
        return;
      case 'end':
        return onEnd();
    }
  }

  function enqueue(work: () => Promise<void>): void {
    chain = chain.then(work).catch((error: unknown) => {
      if (error instanceof FrameError) return fail(error);
      logger.error({ err: error, session: row?.id }, 'stream connection failed');
      return fail(new FrameError('internal_error', 'Internal server error.', null, 1011));
    });
  }

  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (state === 'closed' || state === 'ending') return;
    armIdle();
    enqueue(() => onFrame(data, isBinary));
  });
  // The client closed (any code: charged) or the connection went away without a close frame (1006: released).
  ws.on('close', (code: number) => {
    if (state === 'closed') return;
    const wasEnding = state === 'ending';
    const seconds = transcribed();
    state = 'closed';
    stopTimers();
    channel?.close();
    if (wasEnding) logger.warn({ session: row?.id }, 'stream client left while its session was ending');
    const session = row;
    if (!session) return settle();
    const charged = clientCloseCharges(code);
    settleSession(session, charged, charged ? `client_close_${code}` : 'client_closed', seconds)
      .catch((err: unknown) => logger.error({ err, session: session.id }, 'stream session: settling failed'))
      .finally(settle);
  });
  // A frame ws refused (refuse() below) is reported here too, after its error frame went out.
  ws.on('error', (err) => logger.warn({ err, session: row?.id }, 'stream socket error'));

  armIdle();
  enqueue(claim);

  return {
    done,
    get sessionId() {
      return row?.id;
    },
    block() {
      // A session already ending is charged by its `end`.
      if (state === 'ending') return;
      void fail(new FrameError('user_blocked', 'This account was blocked; the session has ended.', null, 4401));
    },
    refuse(refusal) {
      void fail(
        refusal === 'too_large'
          ? new FrameError('invalid_parameter', 'A frame may hold at most 1 MiB.', null, 4400)
          : new FrameError(
              'invalid_json',
              'The frame is not a valid WebSocket frame of UTF-8 text or audio.',
              null,
              4400,
            ),
        true,
      );
    },
    async shutdown() {
      await fail(new FrameError('engine_unavailable', 'The server is shutting down; open a new session.', null, 1001));
      await done;
    },
  };
}
