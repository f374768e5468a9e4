// v2 transcriptions keep the creation `prompt` (the transcript chat calls it `ai_prompt`) and, once the chat engine
// has answered it, the analysis; both stay null for v3 tasks and for v2 tasks created without a prompt.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('transcriptions', (t) => {
    t.text('ai_prompt').nullable().comment('v2 `prompt`: the analysis asked for at creation.');
    t.text('ai_analysis').nullable().comment('v2 analysis as JSON { model, prompt, text }; null until produced.');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('transcriptions', (t) => {
    t.dropColumn('ai_analysis');
    t.dropColumn('ai_prompt');
  });
}
