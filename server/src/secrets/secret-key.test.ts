// The shared secret key on a real PostgreSQL database, one case per row of the design: a configured key is recorded
// as a fingerprint and another key is refused; without configuration the first node's key (generated, or adopted from
// its data dir) is what every node gets, also when several resolve at once; a key that does not open the v2 secrets
// already in the database is never recorded. SQLite keeps the key loadConfig found and writes no row.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../config.ts';
import { migrateToLatest, openDatabase, type Database } from '../db/database.ts';
import { seal } from './secret-box.ts';
import { freshDatabase } from '../test-support/test-databases.ts';
import { fingerprintOf, resolveSecretKeys } from './secret-key.ts';
import { rejectionOf } from '../test-support/rejection.ts';

/** The key a node seals with. */
const resolveSecretKey = async (...args: Parameters<typeof resolveSecretKeys>) =>
  (await resolveSecretKeys(...args)).current;

interface Fixture {
  url: string;
  dataDir: string;
  /** A pool on the database (each call a new one, as another node would have). */
  open(): Database;
  stored(): Promise<string | undefined>;
}

const opened: Database[] = [];
let dropDatabase: (() => Promise<void>) | undefined;
let fixture: Fixture;

async function freshFixture(kind: 'postgres' | 'sqlite'): Promise<Fixture> {
  const database = await freshDatabase(kind);
  dropDatabase = database.drop;
  const settings = { databaseUrl: database.env.DATABASE_URL, dataDir: database.env.SCRIBE_DATA_DIR! };
  const open = () => {
    const db = openDatabase(settings);
    opened.push(db);
    return db;
  };
  await migrateToLatest(open());
  return {
    url: settings.databaseUrl ?? '',
    dataDir: settings.dataDir,
    open,
    stored: async () =>
      (await opened[0]!('server_settings').where({ name: 'secret_key' }).first<{ value: string } | undefined>())?.value,
  };
}

/** An account with a v2 key pair sealed under `key`, as a deployment from before this table would hold. */
async function sealedKeyPair(db: Database, key: Buffer): Promise<void> {
  const account = randomUUID();
  const at = new Date().toISOString();
  await db('accounts').insert({ id: account, currency: 'RUB', created_at: at, updated_at: at });
  await db('key_pairs').insert({
    id: randomUUID(),
    account_id: account,
    public_key: `pk_${randomUUID()}`,
    secret_encrypted: seal(key, randomBytes(32).toString('hex')),
    created_at: at,
    revoked_at: null,
  });
}

const test = suite('shared secret key (postgres)');

test.before.each(async () => {
  fixture = await freshFixture('postgres');
});

test.after.each(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()));
  await dropDatabase?.();
});

test('a configured key is recorded as its fingerprint only; the same key starts, another is refused', async () => {
  const key = randomBytes(32);
  const resolved = await resolveSecretKey(fixture.open(), { secretKey: key, dataDir: fixture.dataDir });
  assert.ok(resolved.equals(key));
  assert.is(await fixture.stored(), `fingerprint:${fingerprintOf(key).toString('hex')}`);
  assert.not.ok((await fixture.stored())!.includes(key.toString('hex')), 'the key itself is not stored');

  const again = await resolveSecretKey(fixture.open(), { secretKey: Buffer.from(key), dataDir: fixture.dataDir });
  assert.ok(again.equals(key));

  const other = await rejectionOf(
    resolveSecretKey(fixture.open(), { secretKey: randomBytes(32), dataDir: fixture.dataDir }),
    ConfigError,
  );
  assert.is(other.setting, 'SCRIBE_SECRET_KEY');
  assert.match(other.message, /^SCRIBE_SECRET_KEY differs from the key of the other servers/);

  const unset = await rejectionOf(
    resolveSecretKey(fixture.open(), { secretKey: undefined, dataDir: fixture.dataDir }),
    ConfigError,
  );
  assert.is(unset.setting, 'SCRIBE_SECRET_KEY');
  assert.match(unset.message, /^SCRIBE_SECRET_KEY is not set, but the other servers on this database have it/);
  assert.is(await fixture.stored(), `fingerprint:${fingerprintOf(key).toString('hex')}`, 'the row is unchanged');
});

test('without configuration, nodes resolving at once all get the one key recorded', async () => {
  const dataDirs = Array.from({ length: 6 }, () => mkdtempSync(join(tmpdir(), 'scribe-node-')));
  try {
    const keys = await Promise.all(
      dataDirs.map((dataDir) => resolveSecretKey(fixture.open(), { secretKey: undefined, dataDir })),
    );
    for (const key of keys) assert.ok(key.equals(keys[0]!), 'every node has the same key');
    assert.is(await fixture.stored(), `key:${keys[0]!.toString('hex')}`);
    // No node wrote a key file of its own: the database is where the key is.
    const restarted = await resolveSecretKey(fixture.open(), { secretKey: undefined, dataDir: dataDirs[3]! });
    assert.ok(restarted.equals(keys[0]!));

    // Configuring that same key later is accepted; any other key is refused.
    const configured = await resolveSecretKey(fixture.open(), { secretKey: keys[0], dataDir: dataDirs[0]! });
    assert.ok(configured.equals(keys[0]!));
    const other = await rejectionOf(
      resolveSecretKey(fixture.open(), { secretKey: randomBytes(32), dataDir: dataDirs[0]! }),
      ConfigError,
    );
    assert.match(other.message, /^SCRIBE_SECRET_KEY differs/);
  } finally {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
});

test("the first node's data-dir secret.key is adopted, so the secrets it sealed keep opening", async () => {
  const key = randomBytes(32);
  await sealedKeyPair(fixture.open(), key);
  writeFileSync(join(fixture.dataDir, 'secret.key'), `${key.toString('hex')}\n`);
  const resolved = await resolveSecretKey(fixture.open(), { secretKey: undefined, dataDir: fixture.dataDir });
  assert.ok(resolved.equals(key));
  assert.is(await fixture.stored(), `key:${key.toString('hex')}`);

  const elsewhere = mkdtempSync(join(tmpdir(), 'scribe-node-'));
  try {
    const second = await resolveSecretKey(fixture.open(), { secretKey: undefined, dataDir: elsewhere });
    assert.ok(second.equals(key), 'a node without the file gets the adopted key from the database');
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

test('a key that does not open the v2 secrets already stored is never recorded', async () => {
  const original = randomBytes(32);
  await sealedKeyPair(fixture.open(), original);

  const generated = await rejectionOf(
    resolveSecretKey(fixture.open(), { secretKey: undefined, dataDir: fixture.dataDir }),
    ConfigError,
  );
  assert.match(generated.message, /^SCRIBE_SECRET_KEY is not set and the v2 secrets in this database were sealed/);
  writeFileSync(join(fixture.dataDir, 'secret.key'), randomBytes(32).toString('hex'));
  const wrongFile = await rejectionOf(
    resolveSecretKey(fixture.open(), { secretKey: undefined, dataDir: fixture.dataDir }),
    ConfigError,
  );
  assert.match(wrongFile.message, /^SCRIBE_SECRET_KEY is not set and the v2 secrets/);
  const wrongConfigured = await rejectionOf(
    resolveSecretKey(fixture.open(), { secretKey: randomBytes(32), dataDir: fixture.dataDir }),
    ConfigError,
  );
  assert.match(wrongConfigured.message, /^SCRIBE_SECRET_KEY does not open the v2 secrets already stored/);
  assert.is(await fixture.stored(), undefined, 'nothing was recorded');

  const right = await resolveSecretKey(fixture.open(), { secretKey: original, dataDir: fixture.dataDir });
  assert.ok(right.equals(original));
  assert.is(await fixture.stored(), `fingerprint:${fingerprintOf(original).toString('hex')}`);
});

test.run();

const sqlite = suite('secret key on SQLite (one node)');

sqlite.before.each(async () => {
  fixture = await freshFixture('sqlite');
});

sqlite.after.each(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()));
  await dropDatabase?.();
});

sqlite('the key loadConfig found is used as it is and nothing is recorded', async () => {
  const key = randomBytes(32);
  const resolved = await resolveSecretKey(fixture.open(), { secretKey: key, dataDir: fixture.dataDir });
  assert.ok(resolved.equals(key));
  assert.is(await fixture.stored(), undefined);
});

sqlite.run();
