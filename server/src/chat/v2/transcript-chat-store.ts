// The dialogue of each v2 transcription (table transcript_chats): the turns a new request sees as history, and the
// claim of a free service-mini request. The claim inserts the turn as `pending` in the same transaction that counts
// the free turns, with the transcription row locked (PostgreSQL; SQLite serialises writers), so two concurrent
// requests can never both take the fifth free request. A turn without an answer is deleted: only answers count.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.ts';
import { now, toBool } from '../../db/rows.ts';

export interface TranscriptTurn {
  questions: string[];
  answer: string;
}

interface TurnRow {
  id: string;
  questions: string;
  answer: string | null;
  free: boolean | number;
}

export function createTranscriptChatStore(db: Database) {
  return {
    /** Answered turns, oldest first. */
    async history(transcriptionId: string): Promise<TranscriptTurn[]> {
      const rows: TurnRow[] = await db('transcript_chats')
        .where({ transcription_id: transcriptionId, status: 'answered' })
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      return rows.map((row) => ({ questions: JSON.parse(row.questions) as string[], answer: row.answer ?? '' }));
    },

    /**
     * Inserts a pending turn. `wantsFree`: a service-mini request, free while fewer than `freeLimit` turns of the
     * transcription were free. Returns the turn id and whether it is free.
     */
    async claim(turn: {
      transcriptionId: string;
      accountId: string;
      kind: 'analysis' | 'chat';
      model: string;
      questions: string[];
      wantsFree: boolean;
      freeLimit: number;
    }): Promise<{ id: string; free: boolean }> {
      return db.transaction(async (trx) => {
        await trx('transcriptions').where({ id: turn.transcriptionId }).forUpdate().first('id');
        let free = false;
        if (turn.wantsFree) {
          const turns: Pick<TurnRow, 'free'>[] = await trx('transcript_chats')
            .where({ transcription_id: turn.transcriptionId })
            .select('free');
          free = turns.filter((row) => toBool(row.free)).length < turn.freeLimit;
        }
        const id = randomUUID();
        await trx('transcript_chats').insert({
          id,
          transcription_id: turn.transcriptionId,
          account_id: turn.accountId,
          kind: turn.kind,
          status: 'pending',
          model: turn.model,
          questions: JSON.stringify(turn.questions),
          answer: null,
          free,
          prompt_tokens: null,
          completion_tokens: null,
          created_at: now(),
        });
        return { id, free };
      });
    },

    async answer(id: string, answer: string, promptTokens: number, completionTokens: number): Promise<void> {
      await db('transcript_chats').where({ id }).update({
        status: 'answered',
        answer,
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
      });
    },

    async drop(id: string): Promise<void> {
      await db('transcript_chats').where({ id, status: 'pending' }).delete();
    },
  };
}

export type TranscriptChatStore = ReturnType<typeof createTranscriptChatStore>;
