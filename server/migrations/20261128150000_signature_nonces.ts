// The `X-Signature-Nonce` values of v2 signed requests, remembered for as long as their timestamp is accepted (±300 s),
// so a captured request that carries one is refused when it is sent again, by any server process on this database
// and after a restart.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('signature_nonces', (t) => {
    t.comment('Nonces of v2 signed requests, kept until their signature window has passed.');
    t.string('public_key', 255).notNullable().comment('The key pair that signed the request.');
    t.string('nonce', 128).notNullable().comment('The X-Signature-Nonce header, unique per key pair.');
    t.bigInteger('expires_at').notNullable().comment('Unix milliseconds after which the row may be removed.');
    t.primary(['public_key', 'nonce']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('signature_nonces');
}
