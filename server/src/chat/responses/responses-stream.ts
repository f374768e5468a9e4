// A response as the Responses API streams it: each event named by an `event:` line and numbered by
// `sequence_number` from 0 — created and in_progress, the message item and its text part added, the text deltas as
// the engine paces them, then the text, part and item done and the response completed (or incomplete, when
// max_output_tokens cut it). A failure once the stream has begun is one `error` event carrying the error body, and
// the stream ends. No `[DONE]` line: OpenAI's Responses streams have none.
import type { OpenAiResponseRequest, OpenAiResponseStreamEvent } from '../../../../generated/client/types.gen.ts';
import { apiErrorOf, errorObjectOf, type ChatCall, type ChatService } from '../chat-service.ts';
import { createSseStream, type SseStream } from '../sse-stream.ts';
import { outputMessageOf, responseIdsOf, responseOf } from './response-object.ts';
import { responsesErrorOf } from './responses-call.ts';

/** An event as written before its number is given. */
type Unnumbered = OpenAiResponseStreamEvent extends infer E
  ? E extends OpenAiResponseStreamEvent
    ? Omit<E, 'sequence_number'>
    : never
  : never;

export async function streamResponse(
  chat: ChatService,
  body: OpenAiResponseRequest,
  call: ChatCall,
): Promise<SseStream> {
  // Text made before the call is accepted (a local model starts while the funds are being held) waits until the
  // stream exists, as on chat.
  let early = '';
  let write: (text: string) => void = (text) => {
    early += text;
  };
  const started = await chat
    .generate(call, (text) => write(text))
    .catch((error: unknown) => {
      throw responsesErrorOf(error);
    });
  const ids = responseIdsOf(started.id, started.created);
  const sse = createSseStream();
  let sequence = 0;
  const send = (event: Unnumbered) =>
    sse.send({ ...event, sequence_number: sequence++ } as OpenAiResponseStreamEvent, event.type);
  const where = { item_id: ids.itemId, output_index: 0, content_index: 0 } as const;

  const begun = responseOf(body, call.temperature, ids);
  send({ type: 'response.created', response: begun });
  send({ type: 'response.in_progress', response: begun });
  send({
    type: 'response.output_item.added',
    output_index: 0,
    item: { type: 'message', id: ids.itemId, status: 'in_progress', role: 'assistant', content: [] },
  });
  send({ type: 'response.content_part.added', ...where, part: { type: 'output_text', text: '', annotations: [] } });
  write = (text) => send({ type: 'response.output_text.delta', ...where, delta: text, logprobs: [] });
  if (early) write(early);

  void started.answer
    .then((result) => {
      const item = outputMessageOf(ids, result);
      send({ type: 'response.output_text.done', ...where, text: result.content, logprobs: [] });
      send({ type: 'response.content_part.done', ...where, part: item.content[0]! });
      send({ type: 'response.output_item.done', output_index: 0, item });
      const finished = responseOf(body, call.temperature, ids, result);
      send({
        type: finished.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
        response: finished,
      });
    })
    .catch((error: unknown) => {
      if (!call.signal.aborted) send({ type: 'error', error: errorObjectOf(apiErrorOf(responsesErrorOf(error))) });
    })
    .finally(() => sse.end());
  return sse;
}
