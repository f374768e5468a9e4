// The chat answers whose shape the contract fixes beyond the schema, on a server with a chat model: a `json_object`
// answer and a `json_schema` answer keep to their mode (json_mode_conformance), and a plain answer on an account of
// its own is charged what `calculate` quotes for the token usage it reports (billing_consistency, the balance change
// and the ledger's capture), and the funds it reserved at its start are released once the usage is captured
// (reservation_consistency: the available amount moves with the balance, the answer's reserve and release entries
// sum to zero).
import type { BalanceReading } from '../checks/reservation-consistency.ts';
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
  const account = async (): Promise<BalanceReading | undefined> => {
    const exchange = await call(run, actor, 'getAccount', {
      label: 'read the balance',
      phase: 'sse',
      path: { id: actor.id! },
    });
    const read = bodyOf<{ balance?: unknown; available?: unknown }>(exchange);
    if (typeof read?.balance !== 'number' || typeof read.available !== 'number') return undefined;
    return { balance: read.balance, available: read.available, exchange };
  };
  const start = await account();
  const before = start?.balance;
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
  const end = await account();
  const after = end?.balance;
  // the account is this scenario's own: every capture on it is the answer's
  const entries = await ledgerFor(run, actor, '');
  const captures = entries?.filter((e) => e.kind === 'capture') ?? [];
  // the answer's own entries (reserve, capture, release), when their reference names its id
  const own = (entries as Array<{ kind: string; amount: number; reference?: string | null }> | undefined)?.filter(
    (e) => body?.id && (e.reference ?? '').includes(body.id),
  );
  if (start && end)
    run.trace(
      'reservation_consistency',
      {
        subject: `chat ${body?.id ?? ''}`,
        outcome: 'captured',
        cost: quoted,
        before: start,
        holding: [],
        after: end,
        // an answer that costs less than a cent is charged 0: a server may settle it without a capture entry
        ledger: own && own.length > 0 && quoted > 0 ? own : undefined,
      },
      'sse',
      'createChatCompletion',
    );
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
