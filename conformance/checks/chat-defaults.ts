// chat_defaults: what a chat request that leaves a parameter out gets, judged on real answers of one model. A
// request without `stream` is answered with one JSON `chat.completion`, not an event stream (default false). An
// answer that used up its `max_tokens` ends with `finish_reason: length` (what "cut by max_tokens" looks like from
// outside). A greedy answer without `max_tokens` is not cut shorter than the same greedy request with a small
// explicit cap ran (the default is 32000: a cut below what the cap let through is a smaller default). The default
// temperature is 0.7, not greedy decoding: when every answer at an explicit 0.7 departs from the greedy answer
// (temperature 0), the answers without `temperature` must not all be the greedy answer. A correct server fails that
// only when all its sampled answers land on the greedy one while none of the explicit ones does: with five answers of
// 48 tokens each, a chance far below one in a thousand. (Not "all different": a server may seed its sampling, by the
// request or the clock, and answer the same twice.) Each
// judgement needs only what the answers show, so a model that ends its answers early is not judged on the cap.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface ChatDefaultsTrace {
  /** The same greedy question without `max_tokens`, and with a small explicit one. */
  uncapped?: Exchange;
  capped?: Exchange;
  /** The same question with a small `max_tokens`: at temperature 0, without `temperature`, and with an explicit 0.7. */
  greedy?: Exchange;
  sampled: Exchange[];
  explicit: Exchange[];
}

interface Completion {
  object?: unknown;
  choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>;
  usage?: { completion_tokens?: unknown };
}

const sent = (exchange: Exchange): Record<string, unknown> =>
  exchange.request.body?.kind === 'json' ? ((exchange.request.body.value ?? {}) as Record<string, unknown>) : {};

const completion = (exchange: Exchange | undefined): Completion | undefined =>
  exchange?.response.status === 200 && exchange.response.body && typeof exchange.response.body === 'object'
    ? (exchange.response.body as Completion)
    : undefined;

const tokensOf = (answer: Completion | undefined) =>
  typeof answer?.usage?.completion_tokens === 'number' ? answer.usage.completion_tokens : undefined;

const contentOf = (exchange: Exchange) => {
  const content = completion(exchange)?.choices?.[0]?.message?.content;
  return typeof content === 'string' ? content : undefined;
};

export function chat_defaults(trace: ChatDefaultsTrace): Finding[] {
  const findings: Finding[] = [];
  const all = [trace.uncapped, trace.capped, trace.greedy, ...trace.sampled, ...trace.explicit].filter(
    (e): e is Exchange => e !== undefined && e.response.status === 200,
  );
  for (const exchange of all) {
    const fail = (title: string, message: string) => findings.push({ title, message, severity: 'high', exchange });
    const body = sent(exchange);
    const answer = completion(exchange);
    if (!('stream' in body) && (!/json/.test(exchange.response.headers['content-type'] ?? '') || !answer?.choices))
      fail(
        'A chat request without stream is not answered with JSON',
        `Content-Type ${exchange.response.headers['content-type'] ?? '(none)'}: stream defaults to false`,
      );
    const cap = body.max_completion_tokens ?? body.max_tokens;
    const used = tokensOf(answer);
    const finish = answer?.choices?.[0]?.finish_reason;
    if (typeof cap === 'number' && used !== undefined && used >= cap && finish !== 'length')
      fail('An answer cut by max_tokens without finish_reason length', `${used} of ${cap} tokens, ${String(finish)}`);
  }
  const uncapped = completion(trace.uncapped);
  const uncut = tokensOf(uncapped);
  const capped = tokensOf(completion(trace.capped));
  if (
    uncapped?.choices?.[0]?.finish_reason === 'length' &&
    uncut !== undefined &&
    capped !== undefined &&
    uncut < capped
  )
    findings.push({
      title: 'A chat request without max_tokens is cut short',
      message: `cut at ${uncut} tokens, while the same request with max_tokens ${String(sent(trace.capped!).max_tokens)} ran to ${capped} (the default is 32000)`,
      severity: 'high',
      exchange: trace.uncapped,
    });
  const greedy = trace.greedy && contentOf(trace.greedy);
  const sampled = trace.sampled.map(contentOf);
  const explicit = trace.explicit.map(contentOf);
  if (
    greedy !== undefined &&
    sampled.length > 1 &&
    sampled.every((content) => content === greedy) &&
    explicit.length > 1 &&
    explicit.every((content) => content !== undefined && content !== greedy)
  )
    findings.push({
      title: 'A chat request without temperature is answered greedily',
      message:
        `${sampled.length} answers without temperature were all the temperature-0 answer ` +
        `${JSON.stringify(greedy.slice(0, 60))}, while answers at temperature 0.7 departed from it (the default is 0.7)`,
      severity: 'high',
      exchange: trace.sampled[0],
    });
  return findings;
}

registerCheck('chat_defaults', 'trace', chat_defaults);
