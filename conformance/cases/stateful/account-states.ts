// Scenarios on throwaway accounts (needs --admin-token): a blocked account is refused 403 on v3, v1 and v2
// transcript chat, and 409 on a webhook update (the document's one exception), an account with nothing available is
// refused 402 on a paid create (v3 and v2), a burst above the rate limit gets 429 with Retry-After
// (v3 and v2, and on stream session creation) while requests within it right after more WebSocket frames than the
// limit are let in, and the live-key limit (`x-limits.max_live_keys_per_account` of createApiKey) answers 409 one key
// past it (`key_limit_exceeded`), after which the keys listed without a limit come as one page of the default size.
import type { RunContext } from '../../core/run-context.ts';
import type { Exchange } from '../../core/types.ts';
import type WebSocket from 'ws';
import { buildRequest } from '../build.ts';
import { openSession } from '../stream-session.ts';
import { call, type Actor, needs } from './steps.ts';

type Provision = (balance: number, label: string) => Promise<Actor & { id: string }>;

export async function blockedAccount(run: RunContext, provision: Provision): Promise<void> {
  if (!needs(run, 'blocked account', ['blockAccount', 'unblockAccount', 'listModels'])) return;
  const actor = await provision(10, 'blocked');
  const hook = await call(run, actor, 'createWebhook', {
    label: 'a webhook to update once blocked',
    body: { url: 'https://example.org/scribe-conformance/blocked', events: ['transcription.completed'] },
    expectation: { kind: 'status', statuses: [201], reason: 'a webhook of an active account' },
  });
  const hookId = (hook?.response.body as { id?: string } | undefined)?.id;
  await call(run, actor, 'blockAccount', {
    label: 'block',
    path: { id: actor.id },
    expectation: { kind: 'status', statuses: [200], reason: 'block an account' },
  });
  await call(run, actor, 'listModels', {
    label: 'v3 call of a blocked account',
    case: 'blocked-account',
    expectation: { kind: 'status', statuses: [403], reason: 'a blocked account (user_blocked)' },
  });
  await call(run, actor, 'getBillingUsage', {
    label: 'v1 call of a blocked account',
    case: 'blocked-account',
    expectation: { kind: 'status', statuses: [403], reason: 'a blocked account (FORBIDDEN)' },
  });
  await call(run, actor, 'createV2TranscriptChatCompletion', {
    label: 'v2 transcript chat of a blocked account',
    case: 'blocked-account',
    body: { messages: ['Who spoke?'] },
    expectation: { kind: 'status', statuses: [403], reason: 'a blocked account (FORBIDDEN)', code: 'FORBIDDEN' },
  });
  if (hookId)
    await call(run, actor, 'updateWebhook', {
      label: 'webhook update of a blocked account',
      case: 'blocked-webhook-update',
      path: { id: hookId },
      body: { description: 'changed while blocked' },
      expectation: {
        kind: 'status',
        statuses: [409],
        reason: 'a webhook update of a blocked account (the document: 409, not 403)',
        code: 'user_blocked',
      },
    });
  await call(run, actor, 'unblockAccount', {
    label: 'unblock',
    path: { id: actor.id },
    expectation: { kind: 'status', statuses: [200], reason: 'unblock an account' },
  });
  await call(run, actor, 'listModels', {
    label: 'v3 call after unblock',
    expectation: { kind: 'status', statuses: [200], reason: 'an unblocked account' },
  });
}

export async function emptyBalance(run: RunContext, provision: Provision): Promise<void> {
  if (!needs(run, 'empty balance', ['createAsyncTranscription'])) return;
  const actor = await provision(0, 'empty');
  await call(run, actor, 'createAsyncTranscription', {
    label: 'paid create with nothing available',
    mediaType: 'multipart/form-data',
    body: { file: 'audio', language: 'en' },
    expectation: { kind: 'status', statuses: [402], reason: 'an account whose available balance is 0' },
  });
  await call(run, actor, 'createV2Transcription', {
    label: 'v2 paid create with nothing available',
    mediaType: 'multipart/form-data',
    body: { file: 'audio', language: 'en' },
    expectation: {
      kind: 'status',
      statuses: [402],
      reason: 'a v2 account whose available balance is 0',
      code: 'INSUFFICIENT_FUNDS',
    },
  });
}

/** `count` requests at once, taking the operations in turn. */
async function burst(run: RunContext, actor: Actor, operationIds: string[], count: number): Promise<Exchange[]> {
  const operations = operationIds.map((id) => run.spec.byId(id));
  const sent = await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const operation = operations[i % operations.length]!;
      return run.exchange(buildRequest(operation, {}, run.audio), {
        phase: 'stateful',
        label: `burst ${i + 1}/${count}`,
        operation,
        credentials: actor,
        keep429: true,
      });
    }),
  );
  return sent.filter((e): e is Exchange => e !== undefined);
}

export async function rateLimit(run: RunContext, provision: Provision): Promise<void> {
  if (!needs(run, 'rate_limit_conformance', ['listModels', 'getBillingUsage'])) return;
  const limit = run.spec.requestsPerSecond;
  const actor = await provision(10, 'burst');
  // The server may be configured above the documented limit: learn it from RateLimit-Limit first.
  const probe = await call(run, actor, 'listModels', { label: 'read RateLimit-Limit' });
  const advertised = Number(probe?.response.headers['ratelimit-limit'] ?? limit);
  const effective = Number.isInteger(advertised) && advertised > 0 ? advertised : limit;
  if (effective > 50) {
    run.recorder.skipped({
      what: 'rate_limit_conformance',
      phase: 'stateful',
      reason: `the server's limit is ${effective} rps (too many to burst past politely)`,
    });
    return;
  }
  const sent: Exchange[] = [];
  const kept = (exchanges: Exchange[] | undefined) => (sent.push(...(exchanges ?? [])), exchanges);
  for (const operationId of ['listModels', 'getBillingUsage'])
    judgeBurst(run, effective, kept(await burstWithinOneSecond(run, actor, [operationId], effective + 3)), operationId);
  // the limit counts every request of the account, whatever the endpoint: a burst spread over both still hits it
  judgeBurst(
    run,
    effective,
    kept(await burstWithinOneSecond(run, actor, ['listModels', 'getBillingUsage', 'listApiKeys'], effective + 3)),
  );
  // "All requests, including stream session creation": the limit's worth of reads first, then stream sessions
  // asked for within the same second, so the requests past the limit are the session creations themselves
  if (run.isSelected('createStreamSession'))
    judgeBurst(
      run,
      effective,
      kept(
        await withinOneSecond(async () => [
          ...(await burst(run, actor, ['listModels'], effective)),
          ...(await burst(run, actor, ['createStreamSession'], 3)),
        ]),
      ),
      'createStreamSession',
    );
  if (run.isSelected('createStreamSession')) await framesUncounted(run, actor, effective, longestRetryAfter(sent));
}

/** The longest `Retry-After` (seconds) the bursts' 429s asked for: "wait the number of seconds" before the next. */
function longestRetryAfter(exchanges: Exchange[]): number {
  const waits = exchanges
    .filter((exchange) => exchange.response.status === 429)
    .map((exchange) => Number(exchange.response.headers['retry-after']))
    .filter((seconds) => Number.isFinite(seconds) && seconds >= 0);
  return Math.max(1, ...waits);
}

/**
 * "WebSocket frames do not" count toward the limit: after the wait the bursts' 429s asked for (at least a quiet
 * second), a stream session sends more frames than the limit, and requests up to the limit less two (the session's
 * creation and a margin) follow in the same second: none may be refused.
 */
async function framesUncounted(run: RunContext, actor: Actor, limit: number, retryAfter: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
  const created = await call(run, actor, 'createStreamSession', {
    label: 'a stream session to send frames on',
    keep429: true,
  });
  const url = (created?.response.body as { stream_url?: string } | undefined)?.stream_url;
  if (created?.response.status !== 201 || !url) {
    run.recorder.skipped({
      what: 'rate_limit_conformance WebSocket frames',
      phase: 'stateful',
      reason: `the stream session was answered ${created?.response.status ?? 'not sent'}`,
    });
    return;
  }
  const { pcm, sampleRate } = run.audio;
  const chunk = sampleRate / 10; // 50 ms of 16-bit samples
  const frames = limit + 5;
  let socket: WebSocket | undefined;
  let sent!: () => void;
  const framesSent = new Promise<void>((resolve) => (sent = resolve));
  const session = openSession(
    url,
    (open) => {
      socket = open;
      open.send(JSON.stringify({ type: 'session', language: 'en', sample_rate: sampleRate, encoding: 'pcm_s16le' }));
      for (let i = 1; i < frames; i++) open.send(pcm.subarray(i * chunk, (i + 1) * chunk));
      sent();
    },
    20_000,
  );
  await Promise.race([framesSent, session]);
  const within = socket ? await burst(run, actor, ['listModels'], Math.max(1, limit - 2)) : [];
  socket?.send(JSON.stringify({ type: 'end' }));
  await session;
  if (within.length > 0)
    run.trace('rate_limit_conformance', { limit, burst: [], within, frames }, 'stateful', 'createStreamSession');
}

/** Judges a burst; one that never came within a second is listed as not run (it says nothing about the limit). */
function judgeBurst(run: RunContext, limit: number, burst: Exchange[] | undefined, operationId?: string) {
  if (burst) run.trace('rate_limit_conformance', { limit, burst }, 'stateful', operationId);
  else
    run.recorder.skipped({
      what: `rate_limit_conformance${operationId ? ` ${operationId}` : ''}`,
      phase: 'stateful',
      reason: 'three bursts in a row took longer than a second to answer, without a 429 (too slow to tell)',
    });
}

/**
 * A burst after a quiet second. One whose answers took longer than a second and held no 429 says nothing about a
 * per-second limit (on a loaded machine the requests reach the server in two windows): it is sent again, twice at
 * most; undefined when every one was that slow.
 */
async function withinOneSecond(send: () => Promise<Exchange[]>): Promise<Exchange[] | undefined> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const started = performance.now();
    const sent = await send();
    if (sent.some((e) => e.response.status === 429) || performance.now() - started <= 1000) return sent;
  }
  return undefined;
}

const burstWithinOneSecond = (run: RunContext, actor: Actor, operationIds: string[], count: number) =>
  withinOneSecond(() => burst(run, actor, operationIds, count));

export async function keyLimit(run: RunContext, provision: Provision): Promise<void> {
  if (!needs(run, 'key limit', ['createApiKey'])) return;
  const limit = run.spec.byId('createApiKey').limits.max_live_keys_per_account;
  if (!limit || limit > 200) {
    run.recorder.skipped({
      what: 'key limit',
      phase: 'stateful',
      reason: limit ? `limit ${limit} is too many keys to create` : 'the document states no key limit',
    });
    return;
  }
  const actor = await provision(1, 'keys');
  // the account was created with one live key
  for (let i = 1; i < limit; i++) {
    const created = await call(run, actor, 'createApiKey', {
      label: `key ${i + 1} of ${limit}`,
      body: { name: `k${i}` },
    });
    if (created?.response.status !== 201) {
      run.recorder.skipped({
        what: 'key limit',
        phase: 'stateful',
        reason: `key ${i + 1} of ${limit} was answered ${created?.response.status}`,
      });
      return;
    }
  }
  await call(run, actor, 'createApiKey', {
    label: 'one key past the limit',
    body: { name: 'over' },
    expectation: {
      kind: 'status',
      statuses: [409],
      reason: `an account with ${limit} live keys`,
      code: 'key_limit_exceeded',
    },
  });
  // more keys than a page holds: a list asked without `limit` shows whether the default page size is 20
  // (list_pagination_consistency judges the answer)
  await call(run, actor, 'listApiKeys', {
    label: `the ${limit} keys listed without a limit`,
    expectation: { kind: 'status', statuses: [200], reason: 'a list of the account keys' },
  });
}
