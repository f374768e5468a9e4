// A stream protocol client for the tests and the benchmark: a real WebSocket that records every frame the server
// sends and checks each against its AsyncAPI message schema (a frame that is not JSON text, has an unknown `type` or
// breaks its schema is a violation), and the close code against the document's list. Helpers send audio paced in
// real time and wait for frames by type.
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { documentedCloseCodes, messageValidator } from './stream-messages.ts';

const SERVER_MESSAGES = ['session.started', 'transcript.partial', 'transcript.final', 'session.completed', 'error'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- frames are checked against the schemas, read freely
export type Frame = { type: string; receivedAt: number } & Record<string, any>;

export interface Closed {
  code: number;
  reason: string;
}

export class StreamTestClient {
  readonly frames: Frame[] = [];
  readonly violations: string[] = [];
  readonly closed: Promise<Closed>;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise<Closed>((resolve) => {
      ws.on('close', (code, reason) => {
        if (!documentedCloseCodes().includes(code) && code !== 1006)
          this.violations.push(`close code ${code} is not in the document's list`);
        resolve({ code, reason: reason.toString() });
        this.wake();
      });
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        this.violations.push('the server sent a binary frame');
        return;
      }
      let frame: Frame;
      try {
        frame = JSON.parse(data.toString()) as Frame;
      } catch {
        this.violations.push(`not JSON: ${data.toString().slice(0, 80)}`);
        return;
      }
      if (!SERVER_MESSAGES.includes(frame.type)) this.violations.push(`unknown server message ${frame.type}`);
      else {
        const validate = messageValidator(frame.type);
        const valid = validate(frame) as boolean; // not a type guard here: the frame stays readable either way
        if (!valid)
          this.violations.push(
            `${frame.type} breaks its schema: ${JSON.stringify(validate.errors)} in ${data.toString()}`,
          );
      }
      frame.receivedAt = performance.now();
      this.frames.push(frame);
      this.wake();
    });
    ws.on('error', () => undefined); // surfaces as the close
  }

  /** Opens the connection (resolves when the handshake completed). */
  static connect(url: string): Promise<StreamTestClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      const client = new StreamTestClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_request, response) =>
        reject(new Error(`the upgrade was answered ${response.statusCode}`)),
      );
      ws.once('error', reject);
    });
  }

  send(frame: object): void {
    this.ws.send(JSON.stringify(frame));
  }

  sendAudio(pcm: Buffer): void {
    this.ws.send(pcm, { binary: true });
  }

  /** Sends `pcm` in chunks of `chunkMs`, one chunk per `chunkMs` of wall time (0 = as fast as possible). */
  async stream(
    pcm: Buffer,
    options: { sampleRate?: number; chunkMs?: number; realTime?: boolean; onChunk?: (endSeconds: number) => void } = {},
  ): Promise<void> {
    const rate = options.sampleRate ?? 16_000;
    const chunkMs = options.chunkMs ?? 100;
    const chunkBytes = Math.round((rate * chunkMs) / 1000) * 2;
    const started = performance.now();
    for (let offset = 0, index = 0; offset < pcm.length; offset += chunkBytes, index++) {
      if (this.ws.readyState !== WebSocket.OPEN) return;
      if (options.realTime !== false) {
        const due = started + index * chunkMs - performance.now();
        if (due > 0) await sleep(due);
      }
      const chunk = pcm.subarray(offset, offset + chunkBytes);
      this.sendAudio(chunk);
      options.onChunk?.((offset + chunk.length) / 2 / rate);
    }
  }

  /**
   * The first frame of `type` received after the `from`-th frame (waits for it, 60 s by default: a process's first
   * session also starts its stream worker, and two loaded CI runs, test files 5 × slower than alone, saw no
   * `session.started` within 15 s).
   */
  async next(type: string, options: { timeoutMs?: number; from?: number } = {}): Promise<Frame> {
    const deadline = performance.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const found = this.frames.slice(options.from ?? 0).find((frame) => frame.type === type);
      if (found) return found;
      const left = deadline - performance.now();
      if (left <= 0 || this.ws.readyState === WebSocket.CLOSED)
        throw new Error(
          `no ${type} frame (got ${this.frames.map((f) => f.type).join(', ') || 'none'}; ` +
            `errors: ${JSON.stringify(this.of('error').map((f) => f.error))})`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  of(type: string): Frame[] {
    return this.frames.filter((frame) => frame.type === type);
  }

  /** Ends the session cleanly: `end`, then session.completed and the close. */
  async end(timeoutMs = 15_000): Promise<{ completed: Frame; closed: Closed }> {
    this.send({ type: 'end' });
    const completed = await this.next('session.completed', { timeoutMs });
    return { completed, closed: await this.closed };
  }

  /** Drops the connection without a closing handshake (a lost network). */
  drop(): void {
    this.ws.terminate();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}
