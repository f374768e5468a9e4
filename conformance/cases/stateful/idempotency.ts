// Scenario: `Idempotency-Key` on a create. A webhook (free, no task) is created with a fresh key, sent again with the
// same key and body (the stored answer must come back, the same webhook), then with the same key and another body
// (409 idempotency_key_reused); idempotency_conformance judges the three.
import { randomUUID } from 'node:crypto';
import type { RunContext } from '../../core/run-context.ts';
import { call, needs, type Actor } from './steps.ts';

export async function idempotentCreate(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'idempotency_conformance', ['createWebhook'])) return;
  const headers = { 'Idempotency-Key': `conformance-${randomUUID()}` };
  const body = { url: 'https://hooks.example.com/idempotent', events: ['transcription.completed'] };
  const first = await call(run, actor, 'createWebhook', {
    label: 'create a webhook with an Idempotency-Key',
    headers,
    body,
    expectation: { kind: 'status', statuses: [201], reason: 'a public https receiver' },
  });
  const replay = await call(run, actor, 'createWebhook', {
    label: 'the same create again (same key, same body)',
    headers,
    body,
    expectation: { kind: 'status', statuses: [201], reason: 'the stored answer replayed' },
  });
  const reused = await call(run, actor, 'createWebhook', {
    label: 'the same key with another body',
    headers,
    body: { ...body, events: ['transcription.failed'] },
    expectation: { kind: 'status', statuses: [409], reason: 'the key was used with another body' },
  });
  if (!first || !replay || !reused) return;
  run.trace('idempotency_conformance', { first, replay, reused, idField: 'id' }, 'stateful', 'createWebhook');
}
