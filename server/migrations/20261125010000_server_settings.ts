// Settings every server process on one database must share, decided by the first process that starts and read by
// the others: today the AES key that seals v2 secrets (row `secret_key`), so that a secret sealed on one node opens on
// every other. A single-node SQLite server keeps its key in its data dir and leaves this table empty.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('server_settings', (t) => {
    t.comment('Settings shared by every server process on this database, written once by the first to start.');
    t.string('name', 64).primary().comment('The setting, e.g. secret_key.');
    t.text('value')
      .notNullable()
      .comment('secret_key: "key:<hex>" (generated) or "fingerprint:<hex>" (configured on every node).');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('server_settings');
}
