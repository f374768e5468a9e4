// Mutants of the event streams: SSE chat chunks, the transcription WebSocket, webhook deliveries.
import { randomUUID } from 'node:crypto';
import { type Mutant } from '../proxy.ts';
import { STATEFUL, only } from './operators.ts';

type Chunk = { choices?: Array<{ delta?: Record<string, unknown>; finish_reason?: unknown }> };

/** Moves the finish chunk's finish_reason onto the chunk before it and drops the finish chunk. */
function finishOnLastContent(stream: string): string {
  const events = stream.split('\n\n');
  const parsed = events.map((event): Chunk | undefined => {
    try {
      return JSON.parse(event.replace(/^data: /, '')) as Chunk;
    } catch {
      return undefined;
    }
  });
  const at = parsed.findIndex((chunk) => typeof chunk?.choices?.[0]?.finish_reason === 'string');
  const before = parsed[at - 1];
  if (at < 1 || !before?.choices?.[0]) return stream;
  before.choices[0].finish_reason = parsed[at]!.choices![0]!.finish_reason;
  events[at - 1] = `data: ${JSON.stringify(before)}`;
  events.splice(at, 1);
  return events.join('\n\n');
}

export const STREAMS: Mutant[] = [
  // SSE (exercised only where the server answers chat)
  {
    name: 'SSE without [DONE]',
    rules: ['chat.v3.sse-done-last'],
    category: 'sse',
    args: ['--phases', 'sse'],
    response: (_q, r) =>
      /text\/event-stream/.test(r.headers['content-type'] ?? '')
        ? { ...r, body: Buffer.from(r.body.toString().replace('data: [DONE]\n\n', '')) }
        : undefined,
  },
  {
    name: 'SSE role chunk missing',
    rules: ['chat.v3.sse-role-chunk-first'],
    category: 'sse',
    args: ['--phases', 'sse'],
    response: (_q, r) =>
      /text\/event-stream/.test(r.headers['content-type'] ?? '')
        ? { ...r, body: Buffer.from(r.body.toString().split('\n\n').slice(1).join('\n\n')) }
        : undefined,
  },
  {
    // the document's order is content chunks, then a chunk with an empty delta and finish_reason: this one puts the
    // finish_reason on the last content chunk and drops the finish chunk
    name: 'SSE finish_reason on the last content chunk',
    category: 'sse',
    rules: ['chat.v3.sse-finish-chunk'],
    args: ['--phases', 'sse'],
    response: (_q, r) =>
      /text\/event-stream/.test(r.headers['content-type'] ?? '')
        ? { ...r, body: Buffer.from(finishOnLastContent(r.body.toString())) }
        : undefined,
  },
  // stream
  {
    name: 'wrong stream message type',
    rules: ['stream.server.session-started'],
    category: 'stream',
    args: ['--phases', 'streaming'],
    frame: (data) => data.replace('"session.started"', '"session.begun"'),
  },
  {
    name: 'reused ticket accepted',
    rules: ['stt.stream.ticket-single-use'],
    category: 'stream',
    args: ['--phases', 'streaming'],
    replayReusedTicket: true,
  },
  // webhooks
  {
    name: 'bad webhook signature',
    rules: ['webhooks.signature-v1-hmac'],
    category: 'webhooks',
    args: [
      ...STATEFUL,
      ...only('createWebhook', 'testWebhook', 'createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice'),
    ],
    webhook: (h) => ({ ...h, 'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' }),
  },
  {
    name: 'webhook-id differs from the event id',
    rules: ['webhooks.headers-standard'],
    category: 'webhooks',
    args: [
      ...STATEFUL,
      ...only('createWebhook', 'testWebhook', 'createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice'),
    ],
    webhook: (h) => ({ ...h, 'webhook-id': randomUUID() }),
  },
];
