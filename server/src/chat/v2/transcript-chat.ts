// Chat over a v2 transcription: the transcript goes into the system message, the transcription's earlier turns are
// the history, the new questions are user messages. The oldest turns are left out when everything does not fit the
// model's context (a transcript that alone does not fit is 400). service-mini answers the first free turns of each
// transcription without a charge (the creation prompt's analysis is one of them); every other answer is billed.
// Also fills `ai_analysis` of a v2 transcription created with `prompt`, once its transcript is ready.
import type { ChatCompletion, ChatMessage, TranscriptionResult } from '../../../../generated/client/types.gen.ts';
import type { Logger } from 'pino';
import type { AccountRow } from '../../accounts/store.ts';
import type { Database } from '../../db/database.ts';
import { parseJson } from '../../db/rows.ts';
import { ApiError, errors } from '../../http/api-error.ts';
import type { TranscriptionRow } from '../../transcriptions/store.ts';
import type { ChatService } from '../chat-service.ts';
import type { ChatModelId } from '../config.ts';
import type { SseStream } from '../sse-stream.ts';
import type { TranscriptChatStore, TranscriptTurn } from './transcript-chat-store.ts';

export interface TranscriptQuestion {
  account: AccountRow;
  transcriptionId: string;
  questions: string[];
  model: ChatModelId;
  temperature: number;
  maxTokens: number | undefined;
  stream: boolean;
  signal: AbortSignal;
}

export interface TranscriptChatDeps {
  db: Database;
  chat: ChatService;
  store: TranscriptChatStore;
  freeLimit: number;
  logger: Logger;
}

const systemPrompt = (transcript: string) =>
  'You answer questions about the transcript of a recording. Use only what the transcript says.\n\n' +
  `Transcript:\n${transcript}`;

function conversation(transcript: string, history: TranscriptTurn[], questions: string[]): ChatMessage[] {
  return [
    { role: 'system', content: systemPrompt(transcript) },
    ...history.flatMap((turn): ChatMessage[] => [
      ...turn.questions.map((content): ChatMessage => ({ role: 'user', content })),
      { role: 'assistant', content: turn.answer },
    ]),
    ...questions.map((content): ChatMessage => ({ role: 'user', content })),
  ];
}

const transcriptOf = (row: TranscriptionRow) =>
  row.status === 'completed' ? (parseJson<TranscriptionResult>(row.result)?.text ?? '').trim() : '';

export function createTranscriptChat(deps: TranscriptChatDeps) {
  /** The conversation with as much history as fits the model's context (newest turns kept). */
  async function fitted(model: ChatModelId, transcript: string, questions: string[], history: TranscriptTurn[]) {
    for (let skip = 0; skip <= history.length; skip++) {
      const messages = conversation(transcript, history.slice(skip), questions);
      const { maxAnswerTokens } = await deps.chat.measure(model, messages);
      if (maxAnswerTokens >= 1) return messages;
    }
    throw new ApiError(
      400,
      'context_length_exceeded',
      `The transcript and the messages do not fit the context window of ${model}.`,
      'messages',
    );
  }

  async function ask(
    question: TranscriptQuestion,
    kind: 'analysis' | 'chat' = 'chat',
  ): Promise<ChatCompletion | SseStream> {
    const row: TranscriptionRow | undefined = await deps
      .db('transcriptions')
      .where({ id: question.transcriptionId, account_id: question.account.id, api_version: 'v2' })
      .first();
    if (!row) throw errors.notFound('id', 'transcription');
    const transcript = transcriptOf(row);
    if (!transcript) throw new ApiError(400, 'not_ready', 'Transcription not ready for chat.');
    const messages = await fitted(question.model, transcript, question.questions, await deps.store.history(row.id));
    const turn = await deps.store.claim({
      transcriptionId: row.id,
      accountId: question.account.id,
      kind,
      model: question.model,
      questions: question.questions,
      wantsFree: question.model === 'service-mini',
      freeLimit: deps.freeLimit,
    });
    const call = {
      account: question.account,
      model: question.model,
      messages,
      temperature: question.temperature,
      maxTokens: question.maxTokens,
      includeUsage: false,
      billing: turn.free ? ('free' as const) : ('charge' as const),
      signal: question.signal,
      onAnswer: ({
        content,
        usage,
      }: {
        content: string;
        usage: { prompt_tokens: number; completion_tokens: number };
      }) => deps.store.answer(turn.id, content, usage.prompt_tokens, usage.completion_tokens),
      onFailed: () => deps.store.drop(turn.id),
    };
    return question.stream ? deps.chat.stream(call) : deps.chat.complete(call);
  }

  return {
    ask: (question: TranscriptQuestion) => ask(question),

    /**
     * After a task's final state: a completed v2 transcription created with `prompt` gets its analysis (service-mini,
     * one of the free requests). Runs in the background; a failure leaves `ai_analysis` null and is logged.
     */
    onFinal(task: { id: string }): void {
      void (async () => {
        const row: TranscriptionRow | undefined = await deps.db('transcriptions').where({ id: task.id }).first();
        if (!row?.ai_prompt || row.ai_analysis || row.api_version !== 'v2' || !transcriptOf(row)) return;
        const account: AccountRow | undefined = await deps.db('accounts').where({ id: row.account_id }).first();
        if (!account) return;
        const answer = (await ask(
          {
            account,
            transcriptionId: row.id,
            questions: [row.ai_prompt],
            model: 'service-mini',
            temperature: 0.1,
            maxTokens: undefined,
            stream: false,
            signal: new AbortController().signal,
          },
          'analysis',
        )) as ChatCompletion;
        await deps
          .db('transcriptions')
          .where({ id: row.id })
          .update({
            ai_analysis: JSON.stringify({
              model: 'service-mini',
              prompt: row.ai_prompt,
              text: answer.choices[0]!.message.content,
            }),
          });
      })().catch((error: unknown) => {
        // No chat engine configured is the default setup, not a failure worth a warning.
        const unconfigured = error instanceof ApiError && error.code === 'engine_unavailable';
        deps.logger[unconfigured ? 'debug' : 'warn'](
          { err: error, transcriptionId: task.id },
          'the AI analysis of a v2 transcription was not made',
        );
      });
    },
  };
}

export type TranscriptChat = ReturnType<typeof createTranscriptChat>;
