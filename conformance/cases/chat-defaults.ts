// The chat defaults on real answers (chat_defaults), on the v3 create and its OpenAI twin: one greedy question
// without `max_tokens` and with a small one, and, with a small `max_tokens`, the greedy answer, five answers without
// `temperature` and five at an explicit 0.7. No request sends `stream`, so every answer also shows the stream default.
// The cap's question asks for an answer that is bounded (a real model ends it within about a hundred tokens, so the
// request without a cap does not run to the 32000-token default) but longer than the small cap; the sampled ones ask
// for something open, where sampling departs from the greedy answer.
import type { ChatDefaultsTrace } from '../checks/chat-defaults.ts';
import type { RunContext } from '../core/run-context.ts';
import type { Exchange } from '../core/types.ts';
import { call, type Actor } from './stateful/steps.ts';

const BOUNDED = [{ role: 'user', content: 'Count from 1 to 40, separated by commas.' }];
const OPEN = [{ role: 'user', content: 'Write a short poem about a lighthouse keeper.' }];
/** The explicit cap of the greedy pair: small, so the answer without one is likely to run past it. */
const CAP = 24;
/** Tokens per sampled answer: enough that a sampled answer rarely equals the greedy one, still cheap to generate. */
const SAMPLE_TOKENS = 48;
const SAMPLES = 5;

export async function chatDefaults(run: RunContext, actor: Actor): Promise<void> {
  for (const operationId of ['createChatCompletion', 'createOpenAiChatCompletion']) {
    if (!run.isSelected(operationId)) continue;
    const ask = (label: string, messages: typeof OPEN, body: Record<string, unknown>) =>
      call(run, actor, operationId, {
        label,
        phase: 'sse',
        body: { model: 'service-mini', messages, ...body },
        expectation: { kind: 'status', statuses: [200], reason: 'a chat with money on the account' },
      });
    const many = async (label: string, body: Record<string, unknown>) => {
      const answers: Exchange[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const answer = await ask(label, OPEN, body);
        if (answer) answers.push(answer);
      }
      return answers;
    };
    const trace: ChatDefaultsTrace = {
      uncapped: await ask('a greedy answer without max_tokens', BOUNDED, { temperature: 0 }),
      capped: await ask(`a greedy answer with max_tokens ${CAP}`, BOUNDED, { temperature: 0, max_tokens: CAP }),
      greedy: await ask('a greedy short answer', OPEN, { temperature: 0, max_tokens: SAMPLE_TOKENS }),
      sampled: await many('an answer without temperature', { max_tokens: SAMPLE_TOKENS }),
      explicit: await many('an answer at temperature 0.7', { max_tokens: SAMPLE_TOKENS, temperature: 0.7 }),
    };
    run.trace('chat_defaults', trace, 'sse', operationId);
  }
}
