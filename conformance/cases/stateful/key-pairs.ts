// Scenario: how v2/v1 keys are issued (the document: "not shown"; the contract: the admin surface issues a signing
// key pair per account). A key pair issued for a throwaway account answers 201 with its secret, and a v1 request
// signed with it is let in at once — an issued pair that does not open the signed endpoints issues nothing.
import type { Credentials } from '../../core/client.ts';
import type { RunContext } from '../../core/run-context.ts';
import { bodyOf, call, needs, type Actor } from './steps.ts';

type Provision = (balance: number, label: string) => Promise<Actor & { id: string }>;

export async function issuedKeyPair(run: RunContext, provision: Provision): Promise<void> {
  if (!needs(run, 'an issued key pair', ['issueAccountKeyPair', 'getBillingUsage'])) return;
  const actor = await provision(1, 'key-pair');
  const issued = await call(run, actor, 'issueAccountKeyPair', {
    label: 'issue a signing key pair',
    path: { id: actor.id },
    expectation: { kind: 'status', statuses: [201], reason: 'a key pair for an existing account' },
  });
  const pair = bodyOf<{ public_key?: string; secret?: string }>(issued);
  if (!pair?.public_key || !pair.secret) return;
  const signer: Credentials = { account: actor.account, publicKey: pair.public_key, secret: pair.secret };
  await call(run, signer, 'getBillingUsage', {
    label: 'a v1 read signed with the issued pair',
    expectation: { kind: 'status', statuses: [200], reason: 'signed with a key pair the admin surface just issued' },
  });
}
