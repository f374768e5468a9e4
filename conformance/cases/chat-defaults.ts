// The chat defaults on real answers (chat_defaults), on the v3 create and its OpenAI twin: one greedy question
// without `max_tokens` and with a small one, and, with a small `max_tokens`, the greedy answer, three answers without
// `temperature` and three at an explicit 0.7. No request sends `stream`, so every answer also shows the stream default.
import type { ChatDefaultsTrace } from '../checks/chat-defaults.ts';
import type { RunContext } from '../core/run-context.ts';
import type { Exchange } from '../core/types.ts';
import { call, type Actor } from './stateful/steps.ts';

const QUESTION = [{ role: 'user', content: 'Tell me a long story about a lighthouse keeper.' }];
/** The explicit cap of the greedy pair: small, so the answer without one is likely to run past it. */
const CAP = 24;
/** Few tokens per sampled answer: enough to differ when sampled, cheap to generate. */
const SAMPLE_TOKENS = 8;
const SAMPLES = 3;

export async function chatDefaults(run: RunContext, actor: Actor): Promise<void> {
  for (const operationId of ['createChatCompletion', 'createOpenAiChatCompletion']) {
    if (!run.isSelected(operationId)) continue;
    const ask = (label: string, body: Record<string, unknown>) =>
      call(run, actor, operationId, {
        label,
        phase: 'sse',
        body: { model: 'service-mini', messages: QUESTION, ...body },
        expectation: { kind: 'status', statuses: [200], reason: 'a chat with money on the account' },
      });
    const many = async (label: string, body: Record<string, unknown>) => {
      const answers: Exchange[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const answer = await ask(label, body);
        if (answer) answers.push(answer);
      }
      return answers;
    };
    const trace: ChatDefaultsTrace = {
      uncapped: await ask('a greedy answer without max_tokens', { temperature: 0 }),
      capped: await ask(`a greedy answer with max_tokens ${CAP}`, { temperature: 0, max_tokens: CAP }),
      greedy: await ask('a greedy short answer', { temperature: 0, max_tokens: SAMPLE_TOKENS }),
      sampled: await many('an answer without temperature', { max_tokens: SAMPLE_TOKENS }),
      explicit: await many('an answer at temperature 0.7', { max_tokens: SAMPLE_TOKENS, temperature: 0.7 }),
    };
    run.trace('chat_defaults', trace, 'sse', operationId);
  }
}
