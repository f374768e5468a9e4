// sse_conformance: a streamed chat answer is `text/event-stream` framed exactly as the document says — only
// `data: <payload>\n\n` events, every payload a valid ChatCompletionStreamEvent, the assistant role chunk first, the
// content chunks, then `finish_reason` alone on a chunk with an empty delta, the usage chunk when asked for, and
// `[DONE]` last; and the concatenation of the `delta.content`s is the full answer: the deltas are not the answer so
// far (each extending the one before it), and where the suite knows the answer — the same greedy request answered the
// same twice unstreamed, and streamed twice with the same concatenation, so the server is deterministic on both
// paths — the concatenation is that answer.
import { registerCheck } from '../core/registry.ts';
import { describeErrors, type Spec } from '../core/spec.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface SseTrace {
  exchange: Exchange;
  includeUsage: boolean;
  /** The full answer to the same request unstreamed (given only when the server answers it the same every time). */
  answer?: string;
  /** The same streamed request again: the answer is compared only when both streams concatenate alike. */
  again?: Exchange;
}

/** The `delta.content`s of an event stream's chunks, in order (what cannot be parsed is left out). */
export function deltasOf(text: string): string[] {
  return text
    .split('\n\n')
    .map((event) => event.replace(/^data: /, ''))
    .filter((payload) => payload.length > 0 && payload !== '[DONE]')
    .flatMap((payload) => {
      try {
        const content = (JSON.parse(payload) as Chunk).choices?.[0]?.delta?.content;
        return typeof content === 'string' ? [content] : [];
      } catch {
        return [];
      }
    });
}

interface Chunk {
  choices?: Array<{ delta?: { role?: string; content?: string }; finish_reason?: string | null }>;
  usage?: unknown;
  error?: unknown;
}

export function sse_conformance(trace: SseTrace, spec: Spec) {
  const { exchange } = trace;
  const findings: Finding[] = [];
  const fail = (title: string, message: string) => findings.push({ title, message, severity: 'high', exchange });
  if (!/^text\/event-stream\b/.test(exchange.response.headers['content-type'] ?? ''))
    fail('Not an event stream', `Content-Type ${exchange.response.headers['content-type'] ?? '(none)'}`);
  const text = exchange.response.text;
  if (!text.endsWith('\n\n')) fail('Stream does not end with a blank line', JSON.stringify(text.slice(-40)));
  const events = text.split('\n\n').filter((e) => e.length > 0);
  const payloads: string[] = [];
  for (const event of events) {
    const lines = event.split('\n');
    if (lines.length !== 1 || !lines[0]!.startsWith('data: ')) {
      fail('Event not framed as one data line', JSON.stringify(event.slice(0, 80)));
      continue;
    }
    payloads.push(lines[0]!.slice('data: '.length));
  }
  if (payloads.at(-1) !== '[DONE]') fail('Missing [DONE]', `last event: ${JSON.stringify(payloads.at(-1))}`);
  if (payloads.indexOf('[DONE]') !== payloads.length - 1) fail('Events after [DONE]', `${payloads.length} events`);
  const schema = spec.schemas.ChatCompletionStreamEvent;
  const chunks: Chunk[] = [];
  for (const payload of payloads) {
    if (payload === '[DONE]') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      fail('Event payload is not JSON', payload.slice(0, 80));
      continue;
    }
    if (schema) {
      const validate = spec.validator('component:ChatCompletionStreamEvent', schema);
      if (!validate(parsed))
        fail('Event violates schema', `${describeErrors(validate.errors)}: ${payload.slice(0, 120)}`);
    }
    chunks.push(parsed as Chunk);
  }
  if (chunks.some((c) => c.error !== undefined)) return findings; // an in-band failure ends the stream early
  const first = chunks[0]?.choices?.[0]?.delta;
  if (first?.role !== 'assistant' || first.content !== '')
    fail('Role chunk missing', `first delta: ${JSON.stringify(first)}`);
  // "then content chunks; then a chunk with empty delta and `finish_reason`": the finish arrives alone, on the last
  // chunk that has choices (a usage chunk, whose choices are empty, may follow), after every content chunk
  const withChoices = chunks.filter((c) => Array.isArray(c.choices) && c.choices.length > 0);
  const finishing = withChoices.filter((c) => c.choices!.some((choice) => typeof choice.finish_reason === 'string'));
  if (finishing.length === 0) fail('No finish_reason chunk', `${chunks.length} chunks`);
  else {
    const last = withChoices.at(-1)!;
    const finish = last.choices!.find((choice) => typeof choice.finish_reason === 'string');
    if (!finish || finishing.length > 1 || finishing[0] !== last)
      fail(
        'finish_reason not on the last chunk alone',
        `${finishing.length} chunk(s) carry a finish_reason; the last chunk with choices: ${JSON.stringify(last.choices)}`,
      );
    else if (finish.delta && (finish.delta.role !== undefined || (finish.delta.content ?? '') !== ''))
      fail('Finish chunk has a non-empty delta', `delta ${JSON.stringify(finish.delta)}`);
  }
  const concatenation = chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
  const deltas = chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').filter((d) => d.length > 0);
  // text so far instead of what is new: every delta from the second on extends the one before it
  const cumulative =
    deltas.length >= 3 &&
    deltas.every((delta, i) => i === 0 || (delta.length > deltas[i - 1]!.length && delta.startsWith(deltas[i - 1]!)));
  if (cumulative)
    fail(
      'Each delta repeats the text before it',
      `deltas ${JSON.stringify(deltas.slice(0, 3))}…: each carries the answer so far, not what is new`,
    );
  const alike = trace.again !== undefined && deltasOf(trace.again.response.text).join('') === concatenation;
  if (trace.answer !== undefined && alike && concatenation !== trace.answer)
    fail(
      'The deltas do not add up to the answer',
      `the delta.content concatenated: ${JSON.stringify(concatenation.slice(0, 120))}; the same request ` +
        `unstreamed: ${JSON.stringify(trace.answer.slice(0, 120))}`,
    );
  if (trace.includeUsage && !chunks.some((c) => Array.isArray(c.choices) && c.choices.length === 0 && c.usage))
    fail('Usage chunk missing', 'stream_options.include_usage was true');
  return findings;
}

registerCheck('sse_conformance', 'trace', sse_conformance);
