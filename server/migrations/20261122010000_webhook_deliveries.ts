// Webhook deliveries become a durable queue: one row per event and endpoint with its retry state (due time, attempts,
// last answer) and a lease (owner + expiry) held by the dispatcher that is sending it, so several server processes
// never send the same attempt twice and pending deliveries survive a restart. Every attempt is kept in its own row.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.comment('Events to send (or sent) to webhook endpoints, with their retry state.');
    t.uuid('id').primary();
    t.uuid('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.uuid('event_id').notNullable().comment('The webhook-id header of every attempt; the same for every endpoint.');
    t.string('event_type', 64).notNullable();
    t.uuid('task_id').nullable().comment('The transcription task of the event; null for a test event.');
    t.boolean('test').notNullable().defaultTo(false).comment('A test event (sent even to a disabled endpoint).');
    t.text('payload').notNullable().comment('The exact JSON body, signed and sent unchanged on every attempt.');
    t.string('status', 16).notNullable().comment('pending | succeeded | failed');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('response_status').nullable().comment('HTTP status of the last attempt.');
    t.text('last_error').nullable();
    t.timestamp('next_attempt_at', { useTz: true }).nullable();
    t.string('lease_owner', 64).nullable().comment('The dispatcher sending the delivery now.');
    t.timestamp('lease_expires_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true }).nullable();
    t.index(['status', 'next_attempt_at'], 'webhook_deliveries_due_index');
    t.index(['webhook_id', 'created_at'], 'webhook_deliveries_webhook_created_index');
    // One event per task, type and endpoint, however often the final state is reported (test events have no task).
    t.unique(['webhook_id', 'task_id', 'event_type'], { indexName: 'webhook_deliveries_task_event_unique' });
  });

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.comment('Every attempt of a webhook delivery: when, how long, the answer or the error.');
    t.uuid('id').primary();
    t.uuid('delivery_id').notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    t.integer('number').notNullable().comment('1 for the first attempt of the delivery.');
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('response_status').nullable();
    t.text('error').nullable();
    t.index(['delivery_id', 'number'], 'webhook_attempts_delivery_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_attempts');
  await knex.schema.dropTableIfExists('webhook_deliveries');
}
