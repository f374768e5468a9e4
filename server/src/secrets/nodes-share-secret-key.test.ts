// Two real server processes on one PostgreSQL database, each with its own data dir (as on separate machines): with the
// same configured SCRIBE_SECRET_KEY both start and a third with another key stops with one line naming the setting and
// exit code 1; with no key configured anywhere, two nodes starting at once agree on one key, so the v2 secret issued
// (sealed) on one node signs requests that the other node checks (opens).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runNodeToEnd, STACK_LINE, type Ended } from '../../../test/support/processes.ts';
import { canonicalString, sign } from '../../../conformance/core/v1-signature.ts';
import { ADMIN_TOKEN, freshDatabase } from '../test-support/test-databases.ts';
import { startScribe, type ScribeProcess } from '../test-support/scribe-process.ts';

/** A line of a JavaScript stack trace. */

interface KeyPair {
  publicKey: string;
  secret: string;
}

/** An account made on `base` through the admin surface; its v2 key pair is sealed by that node. */
async function accountWithKeyPair(base: string): Promise<KeyPair> {
  const response = await fetch(`${base}/admin/accounts`, {
    method: 'POST',
    headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ balance: 10 }),
  });
  const text = await response.text();
  assert.is(response.status, 201, text);
  const body = JSON.parse(text) as { public_key: string; secret: string };
  return { publicKey: body.public_key, secret: body.secret };
}

/** A signed v2 request on `base`: 200 only when that node opens the pair's secret and the signature matches. */
async function signedCalculate(base: string, pair: KeyPair): Promise<{ status: number; text: string }> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const response = await fetch(`${base}/v2/transcriptions/calculate`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Public-Key': pair.publicKey,
      'X-Timestamp': timestamp,
      'X-Signature': sign(pair.secret, canonicalString(pair.publicKey, timestamp)),
    },
    body: JSON.stringify({ priority: 'queue', duration: '00:45' }),
  });
  return { status: response.status, text: await response.text() };
}

/** A server start on `databaseUrl` that is expected to end: its exit code and everything it printed. */
async function startToTheEnd(databaseUrl: string, env: Record<string, string>): Promise<Ended> {
  const dataDir = mkdtempSync(join(tmpdir(), 'scribe-refused-'));
  try {
    return await runNodeToEnd(['--import', 'tsx', 'server/src/main.ts'], {
      PORT: '0',
      DATABASE_URL: databaseUrl,
      SCRIBE_DATA_DIR: dataDir,
      ...env,
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function assertRefused(result: Ended, expected: RegExp): void {
  const lines = result.output.split('\n').filter((line) => line.trim() !== '');
  assert.is(result.code, 1, result.output);
  assert.is(lines.length, 1, `one line, got:\n${result.output}`);
  assert.match(lines[0]!, expected);
  assert.not.match(result.output, STACK_LINE);
}

const test = suite('nodes on one PostgreSQL database share the secret key');

test('the same configured key on both nodes: both start; another key on a third: exit 1, one line', async () => {
  const key = '85decc0c4bdfdd54cb39bbcf77116f4567f766e6f1db6ccdff35d76e74e4c878';
  const database = await freshDatabase('postgres');
  const url = database.env.DATABASE_URL!;
  const nodes: ScribeProcess[] = [];
  try {
    nodes.push(await startScribe('postgres', { SCRIBE_SECRET_KEY: key }, { joinDatabase: url }));
    nodes.push(await startScribe('postgres', { SCRIBE_SECRET_KEY: key }, { joinDatabase: url }));
    const pair = await accountWithKeyPair(nodes[0]!.base);
    const onB = await signedCalculate(nodes[1]!.base, pair);
    assert.is(onB.status, 200, onB.text);

    assertRefused(
      await startToTheEnd(url, {
        SCRIBE_SECRET_KEY: 'be8ff48dbde62a2fe18376c3914a2f271cf92c7dab2431ce8616fc07c1eb224a',
      }),
      /^scribe: SCRIBE_SECRET_KEY differs from the key of the other servers on this database/,
    );
    assertRefused(
      await startToTheEnd(url, { SCRIBE_SECRET_KEY: '' }),
      /^scribe: SCRIBE_SECRET_KEY is not set, but the other servers on this database have it configured/,
    );
    // The nodes that started are unaffected.
    assert.is((await signedCalculate(nodes[0]!.base, pair)).status, 200);
  } finally {
    for (const node of nodes.reverse()) await node.stop();
    await database.drop();
  }
});

test('no key configured: two nodes starting at once agree, and a secret sealed on A opens on B', async () => {
  const database = await freshDatabase('postgres');
  const url = database.env.DATABASE_URL!;
  const started = await Promise.allSettled([
    startScribe('postgres', { SCRIBE_SECRET_KEY: '' }, { joinDatabase: url }),
    startScribe('postgres', { SCRIBE_SECRET_KEY: '' }, { joinDatabase: url }),
  ]);
  const nodes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  try {
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    const [a, b] = nodes as [ScribeProcess, ScribeProcess];
    const sealedOnA = await accountWithKeyPair(a.base);
    const onB = await signedCalculate(b.base, sealedOnA);
    assert.is(onB.status, 200, onB.text);
    const sealedOnB = await accountWithKeyPair(b.base);
    const onA = await signedCalculate(a.base, sealedOnB);
    assert.is(onA.status, 200, onA.text);
    // A wrong signature is still refused (the 200s above are not an open door).
    const forged = await signedCalculate(b.base, { ...sealedOnA, secret: sealedOnB.secret });
    assert.is(forged.status, 401, forged.text);

    // The key is the database's now: a node configured with a key of its own is refused.
    assertRefused(
      await startToTheEnd(url, {
        SCRIBE_SECRET_KEY: 'de795499bbdadc1e672b13bb288ac67ecaa00b75dcaa3d085a378b65db812136',
      }),
      /^scribe: SCRIBE_SECRET_KEY differs from the key of the other servers on this database/,
    );
  } finally {
    for (const node of nodes.reverse()) await node.stop();
    await database.drop();
  }
});

test.run();
