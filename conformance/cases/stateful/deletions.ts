// Scenario: what can be deleted stays deleted. A webhook is created, its read links followed, then deleted: update,
// test, deliveries and a second delete answer 404. A v3 key is created, used, revoked: calls with it answer 401
// (within the auth-cache delay the document allows), and revoking it again is idempotent.
import { sleep } from '../../core/rate-limiter.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { Exchange } from '../../core/types.ts';
import { bodyOf, call, followReadLinks, type Actor, needs } from './steps.ts';

/**
 * How long a revoked key may still work: the document lets other server processes of a deployment accept it "for a
 * few more seconds" (an auth cache); the suite cannot tell one process from several, so it allows 5 s.
 */
const REVOKE_GRACE_MS = 5000;

export async function webhookDeletion(run: RunContext, actor: Actor): Promise<string | undefined> {
  if (!needs(run, 'use_after_free (webhook)', ['createWebhook', 'deleteWebhook'])) return undefined;
  const created = await call(run, actor, 'createWebhook', {
    label: 'create a webhook to delete',
    body: { url: 'https://hooks.example.com/conformance', events: ['transcription.completed'] },
    expectation: { kind: 'status', statuses: [201], reason: 'a public https receiver' },
  });
  const id = bodyOf<{ id?: string }>(created)?.id;
  if (!created || !id) return undefined;
  run.trace(
    'ensure_resource_availability',
    { created, probes: await followReadLinks(run, actor, created) },
    'stateful',
    'createWebhook',
  );
  await call(run, actor, 'deleteWebhook', {
    label: 'delete',
    path: { id },
    expectation: { kind: 'status', statuses: [200], reason: 'delete a live webhook' },
  });
  const probes: Array<{ exchange: Exchange; expected: number }> = [];
  const after = [
    ['updateWebhook', { description: 'after delete' }],
    ['testWebhook', undefined],
    ['listWebhookDeliveries', undefined],
    ['deleteWebhook', undefined],
  ] as const;
  for (const [operationId, body] of after) {
    const exchange = await call(run, actor, operationId, { label: `${operationId} after delete`, path: { id }, body });
    if (exchange) probes.push({ exchange, expected: 404 });
  }
  run.trace('use_after_free', { resource: `webhook ${id}`, probes }, 'stateful', 'deleteWebhook');
  return id;
}

export async function keyRevocation(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'use_after_free (key)', ['createApiKey', 'revokeApiKey', 'listModels'])) return;
  const created = await call(run, actor, 'createApiKey', {
    label: 'create a key to revoke',
    body: { name: 'conformance' },
    expectation: { kind: 'status', statuses: [201], reason: 'a key on an account far from the key limit' },
  });
  const key = bodyOf<{ id?: string; secret?: string }>(created);
  const secret = key?.secret;
  if (!key?.id || !secret) return;
  const holder: Actor = { account: actor.account, apiKey: secret };
  await call(run, holder, 'listModels', {
    label: 'use the new key',
    expectation: { kind: 'status', statuses: [200], reason: 'a fresh key' },
  });
  await call(run, actor, 'revokeApiKey', {
    label: 'revoke',
    path: { id: key.id },
    expectation: { kind: 'status', statuses: [200], reason: 'revoke a live key' },
  });
  const deadline = Date.now() + REVOKE_GRACE_MS;
  let used: Exchange | undefined;
  for (;;) {
    used = await call(run, holder, 'listModels', { label: 'use the revoked key' });
    if (!used || used.response.status === 401 || Date.now() > deadline) break;
    await sleep(500);
  }
  await call(run, actor, 'revokeApiKey', {
    label: 'revoke again',
    path: { id: key.id },
    expectation: { kind: 'status', statuses: [200], reason: 'revoke is idempotent' },
  });
  if (used)
    run.trace(
      'use_after_free',
      { resource: `key ${key.id}`, probes: [{ exchange: used, expected: 401 }] },
      'stateful',
      'revokeApiKey',
    );
}
