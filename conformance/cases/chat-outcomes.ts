// The chat answers whose shape the contract fixes beyond the schema, on a server with a chat model: a `json_object`
// answer and a `json_schema` answer keep to their mode (json_mode_conformance), and a plain answer on an account of
// its own is charged what `calculate` quotes for the token usage it reports (billing_consistency, the balance change
// and the ledger's capture).
import type { RunContext } from '../core/run-context.ts';
import { ledgerFor } from './stateful/reservations.ts';
import { bodyOf, call, type Actor } from './stateful/steps.ts';

const QUESTION = [{ role: 'user', content: 'Describe a cat.' }];

const SCHEMA_FORMAT = {
  type: 'json_schema' as const,
  json_schema: {
    name: 'animal',
    schema: {
      type: 'object',
      properties: { name: { type: 'string' }, legs: { type: 'integer' } },
      required: ['name', 'legs'],
      additionalProperties: false,
    },
  },
};

export async function chatJsonModes(run: RunContext, actor: Actor): Promise<void> {
  for (const responseFormat of [{ type: 'json_object' as const }, SCHEMA_FORMAT]) {
    const exchange = await call(run, actor, 'createChatCompletion', {
      label: `answer in ${responseFormat.type} mode`,
      phase: 'sse',
      body: { model: 'service-mini', messages: QUESTION, max_tokens: 48, response_format: responseFormat },
      expectation: { kind: 'positive' },
    });
    if (exchange) run.trace('json_mode_conformance', { exchange, responseFormat }, 'sse', 'createChatCompletion');
  }
}

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

export async function chatBilling(run: RunContext, actor: Actor & { id?: string }): Promise<void> {
  if (!actor.id || !run.client.adminToken) return;
  const balance = async () =>
    bodyOf<{ balance?: number }>(
      await call(run, actor, 'getAccount', { label: 'read the balance', phase: 'sse', path: { id: actor.id! } }),
    )?.balance;
  const before = await balance();
  const answer = await call(run, actor, 'createChatCompletion', {
    label: 'a plain answer to bill',
    phase: 'sse',
    body: { model: 'service-mini', messages: QUESTION, max_tokens: 64 },
    expectation: { kind: 'status', statuses: [200], reason: 'a chat with money on the account' },
  });
  const body = bodyOf<{ id?: string; usage?: Usage }>(answer);
  const usage = body?.usage;
  if (answer?.response.status !== 200 || typeof usage?.prompt_tokens !== 'number') return;
  const quote = await call(run, actor, 'calculatePrice', {
    label: 'quote the usage the answer reported',
    phase: 'sse',
    body: {
      type: 'chat',
      model: 'service-mini',
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens ?? 0,
    },
    expectation: { kind: 'status', statuses: [200], reason: 'a chat quote' },
  });
  const quoted = bodyOf<{ amount?: number }>(quote)?.amount;
  if (typeof quoted !== 'number') return;
  const after = await balance();
  // the account is this scenario's own: every capture on it is the answer's
  const entries = await ledgerFor(run, actor, '');
  const captures = entries?.filter((e) => e.kind === 'capture') ?? [];
  run.trace(
    'billing_consistency',
    {
      task: `chat ${body?.id ?? ''}`,
      quoted,
      charged: {
        'the balance change': before !== undefined && after !== undefined ? before - after : undefined,
        'the ledger capture': captures.length > 0 ? -captures.reduce((sum, e) => sum + e.amount, 0) : undefined,
      },
    },
    'sse',
    'createChatCompletion',
  );
}
