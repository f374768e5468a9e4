// Core schema: accounts with their money, v3 keys, v2 key pairs, the ledger and its reservations, idempotency
// records, webhook endpoints and transcription tasks (the columns usage statistics and the status endpoint need).
// Money is stored in integer minor units (kopecks); timestamps are UTC.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.comment('A customer account with a prepaid balance.');
    t.uuid('id').primary();
    t.string('name', 200).nullable().comment('Display name.');
    t.string('currency', 3).notNullable().comment('ISO 4217 currency of every amount of this account.');
    t.bigInteger('balance_minor').notNullable().defaultTo(0).comment('Balance in minor units; the sum of the ledger.');
    t.bigInteger('reserved_minor').notNullable().defaultTo(0).comment('Sum of active reservations, in minor units.');
    t.bigInteger('credit_limit_minor').notNullable().defaultTo(0).comment('Overdraft allowed when enabled.');
    t.boolean('overdraft_enabled').notNullable().defaultTo(false);
    t.string('tariff_plan', 100).notNullable().defaultTo('standard');
    t.boolean('blocked').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.comment('v3 Bearer keys; only a SHA-256 hash of the secret is kept.');
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('name', 100).nullable();
    t.string('prefix', 32)
      .notNullable()
      .unique('api_keys_prefix_unique')
      .comment('First characters of the secret, for lookup and display.');
    t.string('secret_hash', 64).notNullable().comment('Hex SHA-256 of the whole secret.');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true }).nullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.index(['account_id', 'revoked_at'], 'api_keys_account_live_index');
  });

  await knex.schema.createTable('key_pairs', (t) => {
    t.comment('v2/v1 signing key pairs; the secret is encrypted at rest with AES-256-GCM.');
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('public_key', 64).notNullable().unique('key_pairs_public_key_unique');
    t.text('secret_encrypted').notNullable().comment('base64(iv | tag | ciphertext).');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
  });

  await knex.schema.createTable('reservations', (t) => {
    t.comment('Funds held for work in progress; settled exactly once by capture or release.');
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.bigInteger('amount_minor').notNullable();
    t.string('reference', 200).nullable().comment('What the funds are held for, e.g. a task id.');
    t.string('status', 16).notNullable().comment('active | captured | released');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('settled_at', { useTz: true }).nullable();
    t.index(['account_id', 'status'], 'reservations_account_status_index');
  });

  await knex.schema.createTable('ledger_entries', (t) => {
    t.comment('Every money movement of an account; the balance is their sum.');
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('kind', 16).notNullable().comment('topup | reserve | capture | release | adjust');
    t.bigInteger('amount_minor').notNullable().comment('Signed: topup > 0, reserve < 0, release > 0, capture < 0.');
    t.bigInteger('balance_after_minor').notNullable();
    t.string('reference', 200).nullable();
    t.string('description', 500).nullable();
    t.uuid('reservation_id').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['account_id', 'created_at'], 'ledger_entries_account_created_index');
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.comment('Stored responses of creating requests sent with Idempotency-Key (kept 24 h).');
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('key', 255).notNullable();
    t.string('operation_id', 100).notNullable();
    t.string('request_hash', 64).notNullable();
    t.integer('response_status').nullable();
    t.text('response_body').nullable();
    t.text('response_headers').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['account_id', 'key'], 'idempotency_keys_pk');
  });

  await knex.schema.createTable('webhooks', (t) => {
    t.comment('Endpoints that receive transcription events.');
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('url', 2048).notNullable();
    t.text('events').notNullable().comment('JSON array of event types.');
    t.string('description', 500).nullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.string('disabled_reason', 500).nullable();
    t.string('secret', 100).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['account_id', 'created_at'], 'webhooks_account_created_index');
  });

  await knex.schema.createTable('transcriptions', (t) => {
    t.comment('Transcription tasks of every mode (sync, async, stream) and interface (v3, v2).');
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('status', 16).notNullable();
    t.string('mode', 8).notNullable().comment('sync | async | stream');
    t.string('api_version', 4).notNullable().defaultTo('v3');
    t.string('priority', 16).notNullable();
    t.string('source_type', 8).notNullable();
    t.string('filename', 500).notNullable();
    t.bigInteger('file_size').nullable();
    t.string('language', 35).notNullable();
    t.boolean('diarization').notNullable().defaultTo(false);
    t.double('duration_seconds').nullable();
    t.integer('minutes_billed').nullable();
    t.bigInteger('cost_minor').nullable();
    t.integer('progress').notNullable().defaultTo(0);
    t.text('output').nullable().comment('JSON output options.');
    t.text('result').nullable().comment('JSON result.');
    t.text('error').nullable().comment('JSON error object.');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true }).nullable();
    t.timestamp('completed_at', { useTz: true }).nullable();
    t.index(['account_id', 'created_at'], 'transcriptions_account_created_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'transcriptions',
    'webhooks',
    'idempotency_keys',
    'ledger_entries',
    'reservations',
    'key_pairs',
    'api_keys',
    'accounts',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
