// Real-time stream sessions: created with a single-use ticket (stored as its SHA-256) and a reservation, claimed
// atomically by the WebSocket that connects with the ticket, held by that server process under a lease renewed while
// the connection lives, and ended exactly once: completed (charged), dropped or expired (released). A server that
// dies with open sessions stops renewing their leases, and the sweeper of any process releases their reservations.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stream_sessions', (t) => {
    t.comment('Real-time transcription sessions (WebSocket), from ticket to final settlement.');
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('ticket_hash', 64).notNullable().unique().comment('SHA-256 (hex) of the single-use ticket.');
    t.string('status', 16).notNullable().comment('created | connected | completed | dropped | expired');
    t.uuid('reservation_id').nullable().comment('The ledger reservation that holds funds for the session.');
    t.integer('reserved_seconds').notNullable().defaultTo(0).comment('Audio the reservation covers (whole minutes).');
    t.timestamp('expires_at', { useTz: true }).notNullable().comment('The ticket is refused after this moment.');
    t.string('lease_owner', 64).nullable().comment('The server process holding the connection.');
    t.timestamp('lease_expires_at', { useTz: true }).nullable();
    t.text('config').nullable().comment('The applied session settings (JSON), once the session frame arrived.');
    t.double('duration_seconds').nullable();
    t.integer('minutes_billed').nullable();
    t.bigInteger('cost_minor').nullable();
    t.string('end_reason', 32).nullable().comment('Why a session ended without a charge (close code or sweep).');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('connected_at', { useTz: true }).nullable();
    t.timestamp('ended_at', { useTz: true }).nullable();
    t.index(['account_id', 'status'], 'stream_sessions_account_status_index');
    t.index(['status', 'expires_at'], 'stream_sessions_status_expiry_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('stream_sessions');
}
