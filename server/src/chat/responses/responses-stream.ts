// A response as the Responses API streams it: each event named by an `event:` line and numbered by
// `sequence_number` from 0 — created and in_progress, then each output item in the order the engine makes it (the
// text as a message item: added, its part added, the text deltas as the engine paces them, the text, part and item
// done; a tool call as a `function_call` item: added with its name, the argument fragments, the arguments and item
// done), then the response completed (or incomplete, when max_output_tokens cut it). A failure once the stream has
// begun is one `error` event carrying the error body, and the stream ends. No `[DONE]` line: OpenAI's Responses
// streams have none.
import { randomUUID } from 'node:crypto';
import type {
  OpenAiResponseFunctionCall,
  OpenAiResponseOutputItem,
  OpenAiResponseOutputMessage,
  OpenAiResponseRequest,
  OpenAiResponseStreamEvent,
} from '../../../../generated/client/types.gen.ts';
import { apiErrorOf, errorObjectOf, type ChatCall, type ChatService } from '../chat-service.ts';
import type { GenerateResult, ToolCallPiece } from '../engine/engine.ts';
import { createSseStream, type SseStream } from '../sse-stream.ts';
import { toolCallId } from '../tool-calls.ts';
import { functionCallItemId, isCut, responseIdsOf, responseOf, type ResponseIds } from './response-object.ts';
import { responsesErrorOf } from './responses-call.ts';

/** An event as written before its number is given. */
type Unnumbered = OpenAiResponseStreamEvent extends infer E
  ? E extends OpenAiResponseStreamEvent
    ? Omit<E, 'sequence_number'>
    : never
  : never;

/** What the engine hands on: a piece of text, or a piece of a tool call. */
type Piece = { text: string } | { call: ToolCallPiece };

/** The output items of one answer turned into their events as the pieces come. */
function outputEvents(ids: ResponseIds, send: (event: Unnumbered) => void) {
  const items: OpenAiResponseOutputItem[] = [];
  /** The item being written (earlier ones are done), and the function call items by the engine's call index. */
  let open: OpenAiResponseOutputItem | undefined;
  const calls = new Map<number, OpenAiResponseFunctionCall>();

  const add = (item: OpenAiResponseOutputItem) => {
    close('completed');
    open = item;
    items.push(item);
    // The added event shows the item as it begins (a copy: the item itself grows as the pieces come).
    send({ type: 'response.output_item.added', output_index: items.length - 1, item: structuredClone(item) });
  };

  function close(status: 'completed' | 'incomplete') {
    if (!open) return;
    const output_index = items.indexOf(open);
    open.status = status;
    if (open.type === 'message') {
      const where = { item_id: open.id, output_index, content_index: 0 as const };
      const part = { type: 'output_text' as const, text: open.content[0]!.text, annotations: [] };
      send({ type: 'response.output_text.done', ...where, text: part.text, logprobs: [] });
      send({ type: 'response.content_part.done', ...where, part });
    } else {
      const { id: item_id, name, arguments: args } = open;
      send({ type: 'response.function_call_arguments.done', item_id, output_index, name, arguments: args });
    }
    send({ type: 'response.output_item.done', output_index, item: structuredClone(open) });
    open = undefined;
  }

  function text(delta: string) {
    if (open?.type !== 'message') {
      // The first message item has the response's hex; text after a call (rare) is a message item of its own.
      const id = items.some((item) => item.type === 'message') ? `msg_${randomUUID().replace(/-/g, '')}` : ids.itemId;
      const message: OpenAiResponseOutputMessage = {
        type: 'message',
        id,
        status: 'in_progress',
        role: 'assistant',
        content: [],
      };
      add(message);
      const where = { item_id: id, output_index: items.length - 1, content_index: 0 as const };
      send({ type: 'response.content_part.added', ...where, part: { type: 'output_text', text: '', annotations: [] } });
      message.content.push({ type: 'output_text', text: '', annotations: [] });
    }
    const message = open as OpenAiResponseOutputMessage;
    message.content[0]!.text += delta;
    if (delta) {
      const where = { item_id: message.id, output_index: items.indexOf(message), content_index: 0 as const };
      send({ type: 'response.output_text.delta', ...where, delta, logprobs: [] });
    }
  }

  function call(piece: ToolCallPiece) {
    if (piece.name !== undefined) {
      const item: OpenAiResponseFunctionCall = {
        type: 'function_call',
        id: functionCallItemId(),
        call_id: toolCallId(),
        name: piece.name,
        arguments: '',
        status: 'in_progress',
      };
      calls.set(piece.index, item);
      add(item);
    }
    const item = calls.get(piece.index);
    if (!item || !piece.arguments) return;
    item.arguments += piece.arguments;
    send({
      type: 'response.function_call_arguments.delta',
      item_id: item.id,
      output_index: items.indexOf(item),
      delta: piece.arguments,
    });
  }

  return {
    piece: (piece: Piece) => ('text' in piece ? text(piece.text) : call(piece.call)),
    /** Closes the answer's items; its output. An answer without text or calls is one empty message item. */
    finish(result: GenerateResult): OpenAiResponseOutputItem[] {
      // Calls an engine handed on whole rather than in pieces are streamed here, each as one fragment.
      (result.toolCalls ?? []).forEach((whole, index) => {
        if (calls.has(index)) return;
        call({ index, name: whole.name, arguments: '' });
        call({ index, arguments: whole.arguments });
      });
      if (!items.length) text('');
      close(isCut(result) ? 'incomplete' : 'completed');
      return items;
    },
  };
}

export async function streamResponse(
  chat: ChatService,
  body: OpenAiResponseRequest,
  call: ChatCall,
): Promise<SseStream> {
  // Pieces made before the call is accepted (a local model starts while the funds are being held) wait until the
  // stream exists, as on chat.
  const early: Piece[] = [];
  let write: (piece: Piece) => void = (piece) => early.push(piece);
  const started = await chat
    .generate(call, { onDelta: (text) => write({ text }), onToolCall: (piece) => write({ call: piece }) })
    .catch((error: unknown) => {
      throw responsesErrorOf(error);
    });
  const ids = responseIdsOf(started.id, started.created);
  const sse = createSseStream();
  let sequence = 0;
  const send = (event: Unnumbered) =>
    sse.send({ ...event, sequence_number: sequence++ } as OpenAiResponseStreamEvent, event.type);

  const begun = responseOf(body, call.temperature, ids);
  send({ type: 'response.created', response: begun });
  send({ type: 'response.in_progress', response: begun });
  const output = outputEvents(ids, send);
  write = output.piece;
  for (const piece of early) write(piece);

  void started.answer
    .then((result) => {
      const finished = responseOf(body, call.temperature, ids, { result, output: output.finish(result) });
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
