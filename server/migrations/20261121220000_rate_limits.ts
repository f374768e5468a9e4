// The table rate-limiter-flexible uses on PostgreSQL (its own layout), created here so migrations own every table
// and a rollback removes it. SQLite keeps the limiter in memory and gets the table only for symmetry.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (t) => {
    t.comment('Request counters per account and window (rate-limiter-flexible).');
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('rate_limits');
}
