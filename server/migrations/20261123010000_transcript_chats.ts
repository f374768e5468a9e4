// The v2 transcript chat: one row per answered turn of a transcription's dialogue (the creation `prompt` analysis is
// one too), the history later requests see. A row is inserted `pending` before the model runs, so the free-request
// count is claimed atomically, and becomes `answered` with the answer, or is deleted when no answer came.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('transcript_chats', (t) => {
    t.comment('v2 transcript chat turns: questions and answers per transcription, and which turns were free.');
    t.uuid('id').primary();
    t.uuid('transcription_id').notNullable().references('transcriptions.id').onDelete('CASCADE');
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('kind', 16).notNullable().comment('analysis (the creation prompt) | chat');
    t.string('status', 16).notNullable().comment('pending (the model is answering) | answered');
    t.string('model', 32).notNullable();
    t.text('questions').notNullable().comment('JSON array of the user messages of this turn.');
    t.text('answer').nullable();
    t.boolean('free').notNullable().comment('One of the free service-mini requests of the transcription.');
    t.integer('prompt_tokens').nullable();
    t.integer('completion_tokens').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['transcription_id', 'created_at'], 'transcript_chats_transcription_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('transcript_chats');
}
