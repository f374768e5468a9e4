// `scribe migrate`: a deployment of several nodes brings the database to the latest schema once, before the nodes
// start. It applies every migration on a fresh database of each kind and says which, finds nothing to do the second
// time, and four runs at once on one fresh PostgreSQL database all end well (one applies, the others wait their turn).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, freshDatabase } from '../test-support/test-databases.ts';
import { migrationSource } from './migrations.ts';

const root = new URL('../../../', import.meta.url).pathname;
const migrate = (env: Record<string, string>) =>
  promisify(execFile)(process.execPath, [join(root, 'server/bin/scribe.mjs'), 'migrate'], {
    env: { ...process.env, ...env },
  });

for (const kind of databaseKinds) {
  const test = suite(`scribe migrate (${kind})`);

  test('applies every migration once, then finds the database up to date', async () => {
    const database = await freshDatabase(kind);
    try {
      const names = await migrationSource.getMigrations([]);
      // Four at once: before the advisory lock, a fresh database ended with knex reporting "already locked" forever.
      const runs = Array.from({ length: kind === 'postgres' ? 4 : 1 }, () => migrate(database.env));
      const outputs = (await Promise.all(runs)).map((run) => run.stdout.trim());
      const applied = outputs.filter((line) => line.startsWith('scribe: applied '));
      assert.is(applied.length, 1, `exactly one run applied the migrations: ${outputs.join(' | ')}`);
      assert.equal(applied[0]!.slice('scribe: applied '.length).split(', '), names);
      const again = await migrate(database.env);
      assert.is(again.stdout.trim(), 'scribe: the database is up to date');
    } finally {
      await database.drop();
    }
  });

  test.run();
}
