// Phase "sse": streamed chat answers on every surface that streams (v3, the OpenAI drop-in, v2) with a small
// max_tokens and the usage chunk asked for; each response is judged by sse_conformance. The v3 create streams a
// greedy answer, asked twice unstreamed first: when both agree, the stream's deltas must add up to that answer.
// Operations that answer 501 are reported as not run. When v3 chat answers, the JSON modes, the token billing and
// the chat defaults follow (chat-outcomes.ts, chat-defaults.ts).
import { errorCode, type RunContext } from '../core/run-context.ts';
import { chatBilling, chatJsonModes } from './chat-outcomes.ts';
import { chatDefaults } from './chat-defaults.ts';
import { bodyOf, call, type Actor } from './stateful/steps.ts';

const QUESTION = [{ role: 'user', content: 'Say hello in three words.' }];

export async function runSse(run: RunContext): Promise<void> {
  const actor = run.accounts.provision ? await run.accounts.provision(100, 'sse') : run.accounts.main;
  const surfaces: Array<[string, Record<string, unknown>]> = [
    [
      'createChatCompletion',
      {
        model: 'service-mini',
        messages: QUESTION,
        stream: true,
        max_tokens: 16,
        temperature: 0,
        stream_options: { include_usage: true },
      },
    ],
    [
      'createOpenAiChatCompletion',
      {
        model: 'service-mini',
        messages: QUESTION,
        stream: true,
        max_tokens: 16,
        stream_options: { include_usage: true },
      },
    ],
    [
      'createV2ChatCompletion',
      {
        model: 'service-mini',
        messages: QUESTION,
        stream: true,
        max_tokens: 16,
        stream_options: { include_usage: true },
      },
    ],
  ];
  let chatAnswers = false;
  for (const [operationId, body] of surfaces) {
    if (!run.isSelected(operationId)) continue;
    if (run.skipUnimplemented(run.spec.byId(operationId), 'sse')) continue;
    const answer = operationId === 'createChatCompletion' ? await greedyAnswer(run, actor, body) : undefined;
    const exchange = await call(run, actor, operationId, {
      label: 'streamed answer',
      phase: 'sse',
      body,
      expectation: { kind: 'positive' },
    });
    if (!exchange) continue;
    if (exchange.response.status !== 200) {
      const code = errorCode(exchange.response.body);
      run.recorder.skipped({
        what: `sse_conformance ${operationId}`,
        phase: 'sse',
        reason: `the streamed request was answered ${exchange.response.status}${code ? ` ${code}` : ''}`,
      });
      continue;
    }
    // the same stream again: the answer is compared only when the server streams it alike twice
    const again =
      answer === undefined
        ? undefined
        : await call(run, actor, operationId, {
            label: 'streamed answer again',
            phase: 'sse',
            body,
            expectation: { kind: 'positive' },
          });
    run.trace('sse_conformance', { exchange, includeUsage: true, answer, again }, 'sse', operationId);
    if (operationId === 'createChatCompletion') chatAnswers = true;
  }
  if (!chatAnswers) return;
  await chatJsonModes(run, actor);
  await chatDefaults(run, actor);
  if (run.accounts.provision) await chatBilling(run, await run.accounts.provision(100, 'chat-billing'));
}

/** The answer to a streamed request's body asked unstreamed, when the server gives it the same twice. */
async function greedyAnswer(run: RunContext, actor: Actor, streamed: Record<string, unknown>) {
  const body = { ...streamed };
  delete body.stream;
  delete body.stream_options;
  const answers: Array<string | undefined> = [];
  for (let i = 0; i < 2; i++) {
    const exchange = await call(run, actor, 'createChatCompletion', {
      label: 'the streamed question unstreamed',
      phase: 'sse',
      body,
      expectation: { kind: 'positive' },
    });
    answers.push(
      bodyOf<{ choices?: Array<{ message?: { content?: string } }> }>(exchange)?.choices?.[0]?.message?.content,
    );
  }
  return typeof answers[0] === 'string' && answers[0] === answers[1] ? answers[0] : undefined;
}
