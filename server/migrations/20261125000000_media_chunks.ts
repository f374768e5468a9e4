// The original medium of an unfinished transcription task, kept in the database so that every server process on it
// can read it (several processes on one PostgreSQL database, each with its own data dir). The file is split into
// rows of about 1 MiB, written and read one row at a time, so neither side ever holds the whole file in memory.
// There is no foreign key to `transcriptions`: intake stores the medium before the task row exists, and a process
// killed in between leaves chunks without a task, which the sweep removes after an hour. A single-node SQLite
// server keeps media in its data dir and leaves this table empty.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('media_chunks', (t) => {
    t.comment('Original media of unfinished transcription tasks, in chunks of about 1 MiB.');
    t.uuid('task_id').notNullable().comment('The transcription task (its row may not exist yet, see the sweep).');
    t.integer('seq').notNullable().comment('Position of the chunk in the file, from 0.');
    t.binary('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['task_id', 'seq']);
  });
  if (knex.client.config.client === 'pg') {
    // Audio is compressed already: TOAST's compression would only spend CPU on every write and read.
    await knex.raw('ALTER TABLE media_chunks ALTER COLUMN data SET STORAGE EXTERNAL');
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('media_chunks');
}
