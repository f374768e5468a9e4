// Scenario: the signed v2 surface. A v2 task is created from an upload (signed), its read link followed, polled to
// a final state (its reads moving forward along the v2 states), and the three result links it returns are fetched
// with no credentials (text, JSON, PDF: each must answer), each also through its one-format operation
// (`/v2/results/{id}.pdf`); a link with a tampered signature is refused 403; a question is asked about the transcript. Then signature_enforcement:
// the same signed read with each signature header missing, a tampered signature, a timestamp outside the window
// (both sides) or in milliseconds, a signature over a wrong canonical string (a trailing newline, the parts swapped),
// another secret, the version 1 signature sent as `X-Signature-Version: 2`, and the account's v3 key as a bearer
// token (the versions differ in authentication) → 401, while the correctly signed one and a version 2 one over its
// own canonical string are let in; and the v1 usage report without its signature → 401, while the v2 read's signed
// headers replayed on it within the window are let in (the canonical string covers no method, path or body).
import { createHash, randomBytes } from 'node:crypto';
import { hmacHeaders } from '../../core/client.ts';
import { sleep } from '../../core/rate-limiter.ts';
import { sign } from '../../core/v1-signature.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { Exchange } from '../../core/types.ts';
import { bodyOf, call, followReadLinks, type Actor, needs } from './steps.ts';

const FINAL_V2 = new Set(['completed', 'failed', 'cancelled']);
const SKEW_SECONDS = 301 + 60; // beyond the document's ±300 s window, with room for clock differences
const EMPTY_BODY_SHA256 = createHash('sha256').digest('hex');

interface V2Task {
  data?: { status?: string; results?: { text?: string; json?: string; pdf?: string } | null };
}

export async function v2Lifecycle(run: RunContext, actor: Actor): Promise<string | undefined> {
  if (!needs(run, 'v2 scenario', ['createV2Transcription', 'getV2Transcription'])) return undefined;
  if (!actor.publicKey || !actor.secret) {
    run.recorder.skipped({
      what: 'v2 scenario',
      phase: 'stateful',
      reason: 'no v2 key pair (--public-key/--secret or --admin-token)',
    });
    return undefined;
  }
  const created = await call(run, actor, 'createV2Transcription', {
    label: 'create a v2 task from an upload',
    mediaType: 'multipart/form-data',
    body: { file: 'audio', language: 'en' },
    expectation: { kind: 'status', statuses: [201], reason: 'an English upload with money on the account' },
  });
  const id = bodyOf<{ transcription_id?: string }>(created)?.transcription_id;
  if (!created || !id) return undefined;
  const linked = await followReadLinks(run, actor, created);
  run.trace('ensure_resource_availability', { created, probes: linked }, 'stateful', 'createV2Transcription');
  let task: Exchange | undefined;
  // the read link is the task's first read, taken while it is most likely still pending
  const reads: Exchange[] = linked.filter((exchange) => exchange.operationId === 'getV2Transcription');
  const deadline = Date.now() + run.options.taskTimeout * 1000;
  while (Date.now() < deadline) {
    task = await call(run, actor, 'getV2Transcription', { label: 'poll the v2 task', path: { id } });
    if (task) reads.push(task);
    const status = bodyOf<V2Task>(task)?.data?.status;
    if (!task || task.response.status !== 200 || (status && FINAL_V2.has(status))) break;
    await sleep(300);
  }
  run.trace('state_machine_conformance', { observations: [], v2Observations: reads }, 'stateful', 'getV2Transcription');
  const results = bodyOf<V2Task>(task)?.data?.results;
  if (task && bodyOf<V2Task>(task)?.data?.status === 'completed' && results) {
    const linked: Exchange[] = [];
    for (const [format, link] of Object.entries(results)) {
      if (!link) continue;
      const url = new URL(link);
      const relative = `${url.pathname}${url.search}`;
      const operation = run.spec.match('GET', url.pathname);
      const read = await run.exchange(
        { method: 'GET', path: relative, headers: {} },
        {
          phase: 'stateful',
          label: `result link (${format})`,
          operation,
          expectation: { kind: 'status', statuses: [200], reason: 'a fresh result link' },
        },
      );
      if (read) linked.push(read);
      // The same file through the operation of its one media type (`/v2/results/{id}.pdf`), with the link's query.
      const extension = { text: 'txt', json: 'json', pdf: 'pdf' }[format];
      const own = run.spec.match('GET', `/v2/results/${id}.${extension}`);
      if (own)
        await run.exchange(
          { method: 'GET', path: `/v2/results/${encodeURIComponent(id)}.${extension}${url.search}`, headers: {} },
          {
            phase: 'stateful',
            label: `result file (${format}) by its own operation`,
            operation: own,
            expectation: { kind: 'status', statuses: [200], reason: "a fresh result link's query" },
          },
        );
      if (format === 'text') {
        const tampered = relative.replace(
          /signature=([0-9a-f])/,
          (_m, c: string) => `signature=${c === '0' ? '1' : '0'}`,
        );
        await run.exchange(
          { method: 'GET', path: tampered, headers: {} },
          {
            phase: 'stateful',
            label: 'result link with a tampered signature',
            operation,
            expectation: { kind: 'status', statuses: [403], reason: 'a tampered link' },
          },
        );
      }
    }
    // "v2 … returns result links": what the completed read links to is there to be read
    run.trace('ensure_resource_availability', { created: task, probes: linked }, 'stateful', 'getV2Transcription');
    // chat over the transcript (answered 503 engine_unavailable where no chat model is installed)
    await call(run, actor, 'createV2TranscriptChatCompletion', {
      label: 'chat over the transcript',
      path: { id },
      body: { messages: ['What is said, in one word?'], maxTokens: 16 },
      expectation: { kind: 'positive' },
    });
  } else {
    run.recorder.skipped({
      what: 'v2 result links',
      phase: 'stateful',
      reason: `the v2 task ended ${bodyOf<V2Task>(task)?.data?.status ?? 'without a final state in time'}`,
    });
  }
  await signatureEnforcement(run, actor, id);
  return id;
}

/** Signature headers whose X-Signature is the HMAC of another string than the document's canonical one. */
function signedOver(actor: Actor, canonical: (publicKey: string, timestamp: string) => string) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = sign(actor.secret!, canonical(actor.publicKey!, timestamp));
  return { 'X-Public-Key': actor.publicKey!, 'X-Timestamp': timestamp, 'X-Signature': signature };
}

async function signatureEnforcement(run: RunContext, actor: Actor, id: string): Promise<void> {
  const operation = run.spec.byId('getV2Transcription');
  const path = `/v2/transcriptions/${id}`;
  const now = Math.floor(Date.now() / 1000);
  const good = () => hmacHeaders(actor.publicKey!, actor.secret!);
  const without = (name: string) => Object.fromEntries(Object.entries(good()).filter(([header]) => header !== name));
  const signed = good();
  const variants: Array<{ variant: string; valid: boolean; headers: Record<string, string> }> = [
    { variant: 'correctly signed', valid: true, headers: signed },
    { variant: 'without X-Public-Key', valid: false, headers: without('X-Public-Key') },
    { variant: 'without X-Timestamp', valid: false, headers: without('X-Timestamp') },
    { variant: 'without X-Signature', valid: false, headers: without('X-Signature') },
    {
      variant: 'tampered signature',
      valid: false,
      headers: { ...good(), 'X-Signature': good()['X-Signature'].replace(/^./, (c) => (c === '0' ? '1' : '0')) },
    },
    {
      variant: `timestamp ${SKEW_SECONDS} s in the past`,
      valid: false,
      headers: hmacHeaders(actor.publicKey!, actor.secret!, now - SKEW_SECONDS),
    },
    {
      variant: `timestamp ${SKEW_SECONDS} s in the future`,
      valid: false,
      headers: hmacHeaders(actor.publicKey!, actor.secret!, now + SKEW_SECONDS),
    },
    // the canonical string is exactly `public key\ntimestamp`: a signature over anything else is refused
    {
      variant: 'signed over the canonical string with a trailing newline',
      valid: false,
      headers: signedOver(actor, (key, timestamp) => `${key}\n${timestamp}\n`),
    },
    {
      variant: 'signed over the canonical string with its parts swapped',
      valid: false,
      headers: signedOver(actor, (key, timestamp) => `${timestamp}\n${key}`),
    },
    {
      variant: 'signed with another secret',
      valid: false,
      headers: hmacHeaders(actor.publicKey!, randomBytes(32).toString('hex')),
    },
    // "Current Unix time in seconds": the same instant in milliseconds, correctly signed, is not a valid timestamp
    {
      variant: 'timestamp in milliseconds',
      valid: false,
      headers: hmacHeaders(actor.publicKey!, actor.secret!, Date.now()),
    },
    // the contract's version 2 covers the method, the path and the body: signed over that string it is let in,
    // and the version 1 signature sent as version 2 is not (the server must check what the version names)
    { variant: 'X-Signature-Version: 2 over its canonical string', valid: true, headers: version2(actor, 'GET', path) },
    {
      variant: 'X-Signature-Version: 2 with the version 1 signature',
      valid: false,
      headers: { ...good(), 'X-Signature-Version': '2' },
    },
    // v3 and v2 are served side by side and differ in authentication: v3's bearer key opens no v2 endpoint
    ...(actor.apiKey
      ? [
          {
            variant: "the account's v3 key as a bearer token",
            valid: false,
            headers: { Authorization: `Bearer ${actor.apiKey}` },
          },
        ]
      : []),
  ];
  const probes: Array<{ variant: string; valid: boolean; exchange: Exchange }> = [];
  for (const { variant, valid, headers } of variants) {
    const exchange = await run.exchange(
      { method: 'GET', path, headers: {} },
      { phase: 'stateful', label: `signature: ${variant}`, operation, credentials: actor, auth: { headers } },
    );
    if (exchange) probes.push({ variant, valid, exchange });
  }
  run.trace('signature_enforcement', { probes }, 'stateful', operation.id);
  await v1SignatureEnforcement(run, actor, signed);
}

/** The contract's version 2 signature headers of a request without a body. */
function version2(actor: Actor, method: string, pathAndQuery: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const canonical = `${actor.publicKey!}\n${timestamp}\n${method}\n${pathAndQuery}\n${EMPTY_BODY_SHA256}`;
  return {
    'X-Public-Key': actor.publicKey!,
    'X-Timestamp': timestamp,
    'X-Signature': sign(actor.secret!, canonical),
    'X-Signature-Version': '2',
  };
}

/**
 * "All v2 and v1 endpoints use the signed-header authentication": the v1 usage report, signed and not, and signed
 * with the headers an earlier v2 read sent (`replayed`): the canonical string covers no method, path or body, so
 * they are valid on any endpoint within the timestamp window (the contract documents this replay).
 */
async function v1SignatureEnforcement(run: RunContext, actor: Actor, replayed: Record<string, string>): Promise<void> {
  if (!run.isSelected('getBillingUsage')) return;
  const operation = run.spec.byId('getBillingUsage');
  const good = () => hmacHeaders(actor.publicKey!, actor.secret!);
  const without = (name: string) => Object.fromEntries(Object.entries(good()).filter(([header]) => header !== name));
  // "three headers are required on every protected request": each one left out alone is refused
  const variants: Array<{ variant: string; valid: boolean; headers: Record<string, string> }> = [
    { variant: 'v1 correctly signed', valid: true, headers: good() },
    { variant: 'v1 without X-Public-Key', valid: false, headers: without('X-Public-Key') },
    { variant: 'v1 without X-Timestamp', valid: false, headers: without('X-Timestamp') },
    { variant: 'v1 without X-Signature', valid: false, headers: without('X-Signature') },
    { variant: 'v1 without any signature header', valid: false, headers: {} },
    {
      variant: 'v1 with the signed headers of the v2 read, replayed within the window',
      valid: true,
      headers: replayed,
    },
  ];
  const probes: Array<{ variant: string; valid: boolean; exchange: Exchange }> = [];
  for (const { variant, valid, headers } of variants) {
    const exchange = await run.exchange(
      { method: 'GET', path: operation.path, headers: {} },
      { phase: 'stateful', label: `signature: ${variant}`, operation, credentials: actor, auth: { headers } },
    );
    if (exchange) probes.push({ variant, valid, exchange });
  }
  run.trace('signature_enforcement', { probes }, 'stateful', operation.id);
}
