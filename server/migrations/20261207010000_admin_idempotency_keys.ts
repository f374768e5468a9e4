// Idempotency-Key on the admin surface: the operator's requests belong to no account, so their keys live in a table
// of their own (idempotency_keys is keyed by account). A retried top-up or account create then replays its answer.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('admin_idempotency_keys', (t) => {
    t.comment('Stored responses of admin requests sent with Idempotency-Key (kept 24 h).');
    t.string('key', 255).primary();
    t.string('operation_id', 100).notNullable();
    t.string('request_hash', 64).notNullable();
    t.integer('response_status').nullable();
    t.text('response_body').nullable();
    t.text('response_headers').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('admin_idempotency_keys');
}
