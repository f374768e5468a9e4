// The body of a server-sent event answer: a Node stream the dispatcher hands to Koa, written one `data: <payload>`
// event at a time (no `event:` or `id:` lines, as the seed frames chat streams; the Responses API names each event
// with an `event:` line, as OpenAI does).
import { PassThrough } from 'node:stream';

export interface SseStream {
  readable: PassThrough;
  /**
   * Writes one event; objects are sent as JSON, strings (`[DONE]`) as they are, after an `event:` line when `event`
   * is given. Ignored once the stream ended.
   */
  send(payload: object | string, event?: string): void;
  end(): void;
}

export function createSseStream(): SseStream {
  const readable = new PassThrough();
  return {
    readable,
    send(payload, event) {
      if (readable.writableEnded || readable.destroyed) return;
      const data = `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
      readable.write(event === undefined ? data : `event: ${event}\n${data}`);
    },
    end() {
      if (!readable.writableEnded) readable.end();
    },
  };
}

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};
