// The transcription task becomes a durable job: where its media is, the reservation that pays for it, and a lease
// (owner + expiry) that a worker holds while it works on the task. A worker that dies stops renewing its lease, and
// another worker (or the restarted server) takes the task over once the lease has expired.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('transcriptions', (t) => {
    t.text('source_url').nullable().comment('The link of a URL source (async v3 url, v2 source_url).');
    t.text('media_path').nullable().comment('The original medium on disk (upload or download) until the task ends.');
    t.uuid('reservation_id').nullable().comment('The ledger reservation that pays for the task.');
    t.text('terms').nullable().comment('JSON array of words to favour (v2 terms).');
    t.string('lease_owner', 64).nullable().comment('The worker holding the task.');
    t.timestamp('lease_expires_at', { useTz: true }).nullable();
    t.integer('attempts').notNullable().defaultTo(0).comment('How many times a worker has taken the task.');
    t.boolean('event_pending')
      .notNullable()
      .defaultTo(false)
      .comment('Set with the final state, cleared once the webhook event is enqueued (a crash in between is swept).');
    t.index(['status', 'priority', 'created_at'], 'transcriptions_queue_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('transcriptions', (t) => {
    t.dropIndex(['status', 'priority', 'created_at'], 'transcriptions_queue_index');
    for (const column of [
      'source_url',
      'media_path',
      'reservation_id',
      'terms',
      'lease_owner',
      'lease_expires_at',
      'attempts',
      'event_pending',
    ]) {
      t.dropColumn(column);
    }
  });
}
