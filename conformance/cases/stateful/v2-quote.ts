// Scenario: a v2 quote creates no record ("No record is created."). On a throwaway account no other scenario uses,
// the balance, the available amount, the ledger's entries and the task list are read before and after
// POST /v2/transcriptions/calculate; quote_leaves_no_record compares them. The quote sends the file metadata too,
// so v2_calculate_echo judges its echo here as well as in the examples.
import type { AccountSnapshot } from '../../checks/quote-leaves-no-record.ts';
import type { RunContext } from '../../core/run-context.ts';
import { bodyOf, call, needs, type Actor } from './steps.ts';

type Provision = (balance: number, label: string) => Promise<Actor & { id: string }>;

const ids = (value: { data?: Array<{ id?: unknown }> } | undefined) => value?.data?.map((item) => String(item.id));

async function snapshot(run: RunContext, actor: Actor & { id: string }, when: string): Promise<AccountSnapshot> {
  const account = bodyOf<{ balance?: number; available?: number }>(
    await call(run, actor, 'getAccount', { label: `the account ${when} a v2 quote`, path: { id: actor.id } }),
  );
  const ledger = bodyOf<{ data?: Array<{ id?: unknown }> }>(
    await call(run, actor, 'listAccountLedger', {
      label: `the ledger ${when} a v2 quote`,
      path: { id: actor.id },
      query: { limit: 100 },
    }),
  );
  const tasks = bodyOf<{ data?: Array<{ id?: unknown }> }>(
    await call(run, actor, 'listTranscriptions', { label: `the tasks ${when} a v2 quote`, query: { limit: 100 } }),
  );
  return { balance: account?.balance, available: account?.available, ledger: ids(ledger), tasks: ids(tasks) };
}

export async function v2QuoteLeavesNoRecord(run: RunContext, provision: Provision): Promise<void> {
  if (!run.client.adminToken) return;
  if (
    !needs(run, 'a v2 quote leaves no record', [
      'calculateV2TranscriptionCost',
      'getAccount',
      'listAccountLedger',
      'listTranscriptions',
    ])
  )
    return;
  const actor = await provision(100, 'v2-quote');
  if (!actor.publicKey) return;
  const before = await snapshot(run, actor, 'before');
  const quote = await call(run, actor, 'calculateV2TranscriptionCost', {
    label: 'a v2 quote with file metadata',
    body: { priority: 'queue', duration: '02:05', filename: 'interview.mp3', file_size: 2048576 },
    expectation: { kind: 'status', statuses: [200], reason: 'a v2 quote on an account with money' },
  });
  if (!quote) return;
  const after = await snapshot(run, actor, 'after');
  run.trace('quote_leaves_no_record', { quote, before, after }, 'stateful', 'calculateV2TranscriptionCost');
}
