// Rotating SCRIBE_SECRET_KEY on SQLite and PostgreSQL, with the real server app and the real `scribe secrets` CLI:
// values sealed with the old key (a v2 key pair secret, a webhook signing secret, a stored idempotent answer) and a
// result link signed with it keep working while the old key is in SCRIBE_SECRET_KEY_PREVIOUS; `scribe secrets
// reseal` re-seals them with the new key (and on PostgreSQL records it, so a node still on the old key is refused);
// afterwards the new key alone opens everything and the old link verifies only while the old key is listed. A value
// no listed key opens stops the reseal with nothing changed, and `unseal-for-downgrade` writes the webhook secrets
// and stored answers back in clear for an earlier version.
import { execFile } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, type App } from '../app.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { createIdempotencyStore } from '../http/idempotency.ts';
import { databaseKinds, freshDatabase } from '../test-support/test-databases.ts';
import { rejectionOf } from '../test-support/rejection.ts';
import { createResultLinks } from '../transcriptions/v2/result-links.ts';
import { createWebhookStore } from '../webhooks/store.ts';
import { open, seal, singleKey } from './secret-box.ts';

const root = new URL('../../../', import.meta.url).pathname;
const hex = () => randomBytes(32).toString('hex');

function secretsCli(verb: string, env: Record<string, string>) {
  return promisify(execFile)(process.execPath, [join(root, 'server/bin/scribe.mjs'), 'secrets', verb], {
    env: { ...process.env, NODE_ENV: 'test', ...env },
  });
}

const startApp = (env: Record<string, string>) =>
  createApp(loadConfig({ NODE_ENV: 'test', ...env }), { logger: pino({ level: 'silent' }) });

test0();
function test0() {
  const test = suite('SCRIBE_SECRET_KEY_PREVIOUS settings');
  test('needs the new key beside it, 64 hex characters each, and not the new key itself', () => {
    const [a, b, c] = [hex(), hex(), hex()];
    const config = loadConfig({
      SCRIBE_SECRET_KEY: a,
      SCRIBE_SECRET_KEY_PREVIOUS: `${b}, ${c}`,
      SCRIBE_DATA_DIR: '/tmp/x',
    });
    assert.equal(
      config.previousSecretKeys.map((key) => key.toString('hex')),
      [b, c],
    );
    // Rotating away from a published key is the point: it is accepted as a previous key.
    assert.is(
      loadConfig({ SCRIBE_SECRET_KEY: a, SCRIBE_SECRET_KEY_PREVIOUS: '0'.repeat(64) }).previousSecretKeys.length,
      1,
    );
    for (const env of [
      { SCRIBE_SECRET_KEY_PREVIOUS: b },
      { SCRIBE_SECRET_KEY: a, SCRIBE_SECRET_KEY_PREVIOUS: 'abc' },
      { SCRIBE_SECRET_KEY: a, SCRIBE_SECRET_KEY_PREVIOUS: a },
    ]) {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (thrown) {
        error = thrown;
      }
      assert.instance(error, ConfigError, JSON.stringify(env));
      assert.match(String((error as Error).message), 'SCRIBE_SECRET_KEY_PREVIOUS');
    }
  });
  test.run();
}

for (const kind of databaseKinds) {
  const test = suite(`SCRIBE_SECRET_KEY rotation (${kind})`);

  test('old values work during the rotation, reseal moves them to the new key, the old key is then refused', async () => {
    const database = await freshDatabase(kind, { migrated: true });
    const [oldKey, newKey] = [hex(), hex()];
    const rotating = { ...database.env, SCRIBE_SECRET_KEY: newKey, SCRIBE_SECRET_KEY_PREVIOUS: oldKey };
    const apps: App[] = [];
    const start = async (env: Record<string, string>) => {
      const app = await startApp(env);
      apps.push(app);
      return app;
    };
    try {
      // Before: everything sealed or signed with the old key.
      let app = await start({ ...database.env, SCRIBE_SECRET_KEY: oldKey });
      const account = await app.services.accounts.create({ balance: 1 });
      const webhookId = randomUUID();
      const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
      const at = new Date().toISOString();
      await createWebhookStore(app.db, singleKey(Buffer.from(oldKey, 'hex'))).insert({
        id: webhookId,
        account_id: account.account.id,
        url: 'https://receiver.example.org/hook',
        events: '["transcription.completed"]',
        description: null,
        enabled: true,
        disabled_reason: null,
        secret: webhookSecret,
        created_at: at,
        updated_at: at,
      });
      const owner = { accountId: account.account.id };
      const replayed = { status: 201, body: { secret: 'sk_live_replayed' }, headers: {} };
      const oldStore = createIdempotencyStore(app.db, singleKey(Buffer.from(oldKey, 'hex')));
      assert.is(await oldStore.claim(owner, 'retry-1', 'createApiKey', 'h'), undefined);
      await oldStore.complete(owner, 'retry-1', replayed);
      const link = new URL(
        createResultLinks(singleKey(Buffer.from(oldKey, 'hex')), 3600).issue('http://x', 'abc').text,
      );
      await app.close();
      apps.pop();

      const canonical = `${account.public_key}\n${Math.floor(Date.now() / 1000)}`;
      const signature = createHmac('sha256', account.secret!).update(canonical).digest('hex');
      const verifies = async (a: App) =>
        (await a.services.keys.verifySignature(account.public_key!, canonical, signature)) !== undefined;

      // During: the new key with the old one listed opens the old values; new ones are sealed with the new key.
      app = await start(rotating);
      assert.ok(await verifies(app), 'the old key pair verifies during the rotation');
      await app.close();
      apps.pop();
      if (kind === 'postgres') {
        // The database names the old key until the reseal: the new key alone is refused, not silently used.
        await rejectionOf(startApp({ ...database.env, SCRIBE_SECRET_KEY: newKey }), ConfigError);
      }

      const resealed = await secretsCli('reseal', rotating);
      assert.match(resealed.stdout, /key_pairs: 1 re-sealed, 0 already current/);
      assert.match(resealed.stdout, /webhooks: 1 re-sealed, 0 already current/);
      assert.match(resealed.stdout, /idempotency_keys: 1 re-sealed, 0 already current/);
      assert.match(resealed.stdout, 'SCRIBE_SECRET_KEY_PREVIOUS can be removed');
      // A second run finds everything current.
      assert.match((await secretsCli('reseal', rotating)).stdout, /key_pairs: 0 re-sealed, 1 already current/);

      // After: the new key alone opens everything; the old key opens nothing.
      app = await start({ ...database.env, SCRIBE_SECRET_KEY: newKey });
      assert.ok(await verifies(app), 'the key pair verifies with the new key alone');
      const newKeys = singleKey(Buffer.from(newKey, 'hex'));
      assert.is((await createWebhookStore(app.db, newKeys).get(webhookId))!.secret, webhookSecret);
      const newStore = createIdempotencyStore(app.db, newKeys);
      assert.equal((await newStore.claim(owner, 'retry-1', 'createApiKey', 'h'))?.body, replayed.body);
      const sealedPair = (await app.db('key_pairs').first('secret_encrypted')).secret_encrypted as string;
      assert.throws(() => open(Buffer.from(oldKey, 'hex'), sealedPair));
      // The old link verifies while the old key is listed, and not once it is dropped.
      const [expires, sig] = [Number(link.searchParams.get('expires')), link.searchParams.get('signature')!];
      const withPrevious = { current: Buffer.from(newKey, 'hex'), previous: [Buffer.from(oldKey, 'hex')] };
      assert.is(createResultLinks(withPrevious, 3600).check('abc', 'text', expires, sig), 'valid');
      assert.is(createResultLinks(newKeys, 3600).check('abc', 'text', expires, sig), 'invalid');
      await app.close();
      apps.pop();
      if (kind === 'postgres') {
        // A node still on the old key is refused after the reseal.
        await rejectionOf(startApp({ ...database.env, SCRIBE_SECRET_KEY: oldKey }), ConfigError);
      }
    } finally {
      for (const app of apps) await app.close().catch(() => undefined);
      await database.drop();
    }
  });

  test('a value no listed key opens stops the reseal unchanged; unseal-for-downgrade writes secrets in clear', async () => {
    const database = await freshDatabase(kind, { migrated: true });
    const [oldKey, newKey, lostKey] = [hex(), hex(), hex()];
    try {
      const app = await startApp({ ...database.env, SCRIBE_SECRET_KEY: oldKey });
      const account = await app.services.accounts.create({ balance: 1 });
      const at = new Date().toISOString();
      const row = (id: string, secret: string) => ({
        id,
        account_id: account.account.id,
        url: 'https://receiver.example.org/hook',
        events: '["transcription.completed"]',
        description: null,
        enabled: true,
        disabled_reason: null,
        secret,
        created_at: at,
        updated_at: at,
      });
      const kept = randomUUID();
      await createWebhookStore(app.db, singleKey(Buffer.from(oldKey, 'hex'))).insert(row(kept, 'whsec_kept'));
      const lost = randomUUID();
      await app.db('webhooks').insert(row(lost, `sealed:${seal(Buffer.from(lostKey, 'hex'), 'whsec_lost')}`));
      const pairBefore = (await app.db('key_pairs').first('secret_encrypted')).secret_encrypted;
      await app.close();

      const rotating = { ...database.env, SCRIBE_SECRET_KEY: newKey, SCRIBE_SECRET_KEY_PREVIOUS: oldKey };
      const failed = await rejectionOf(secretsCli('reseal', rotating), Error);
      assert.match(String((failed as { stderr?: string }).stderr), /webhooks\.secret open with neither/);
      const db = openDatabase(loadConfig({ ...database.env, SCRIBE_SECRET_KEY: oldKey }));
      try {
        const pairAfter = (await db('key_pairs').first('secret_encrypted')).secret_encrypted;
        assert.is(pairAfter, pairBefore, 'nothing was re-sealed');
        await db('webhooks').where({ id: lost }).delete();

        const unsealed = await secretsCli('unseal-for-downgrade', { ...database.env, SCRIBE_SECRET_KEY: oldKey });
        assert.match(unsealed.stdout, /webhooks: 1 unsealed, 0 already in clear/);
        assert.is((await db('webhooks').where({ id: kept }).first('secret')).secret, 'whsec_kept');
        // v2 key pair secrets stay sealed: every version reads them sealed.
        assert.is((await db('key_pairs').first('secret_encrypted')).secret_encrypted, pairBefore);
      } finally {
        await db.destroy();
      }
    } finally {
      await database.drop();
    }
  });

  test.run();
}
