// Scenario: every model the document names is let in. The OpenAI drop-in transcribes with `whisper-1` ("also
// accepts `whisper-1` as an alias") and v3 chat answers each of the two chat models the document lists
// (`service-mini`, `service-pro`): 200 each, not 404 `model_not_found`. A chat model that GET /v3/models does not list
// as available would be answered 503 `engine_unavailable` (a server may run without it): its 200 is listed as not run
// with that reason, and so is the rule its case proves (`service-pro-chat`; `service-mini` is asked all through the
// suite); one listed as `unavailable` is asked anyway, and must be answered 503 `engine_unavailable` ("engine not
// available", case `unavailable-chat-model`).
import type { RunContext } from '../../core/run-context.ts';
import { bodyOf, call, type Actor } from './steps.ts';

/** The document's chat models ("two models, `service-mini` and `service-pro`") and the named case of each, written
 * here so a looser `--spec` cannot drop one. */
const DOCUMENTED_CHAT_MODELS: ReadonlyArray<[string, string | undefined]> = [
  ['service-mini', undefined],
  ['service-pro', 'service-pro-chat'],
];

export async function documentedModels(run: RunContext, actor: Actor): Promise<void> {
  await call(run, actor, 'createOpenAiAudioTranscription', {
    label: 'transcribe with the whisper-1 alias',
    case: 'whisper-1-alias',
    mediaType: 'multipart/form-data',
    body: { file: 'audio', model: 'whisper-1', language: 'en' },
    expectation: { kind: 'status', statuses: [200], reason: 'whisper-1, the alias of service-transcribe' },
  });
  if (!run.isSelected('createChatCompletion')) return;
  const listed = bodyOf<{ data?: { id?: string; type?: string; status?: string }[] }>(
    await call(run, actor, 'listModels', { label: 'which chat models are available' }),
  )?.data;
  for (const [model, name] of DOCUMENTED_CHAT_MODELS) {
    const entry = listed?.find((m) => m.id === model);
    if (entry?.status !== 'available') {
      run.recorder.skipped({
        what: `chat with ${model}`,
        phase: 'stateful',
        case: name,
        reason: listed
          ? `GET /v3/models lists ${model} ${entry ? `as ${String(entry.status)}` : 'not at all'} (chat with it would be 503 engine_unavailable)`
          : 'GET /v3/models did not answer a list',
      });
      if (entry?.status === 'unavailable')
        await call(run, actor, 'createChatCompletion', {
          label: `chat with ${model}, listed unavailable`,
          case: 'unavailable-chat-model',
          body: { model, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 },
          expectation: {
            kind: 'status',
            statuses: [503],
            reason: `${model} is listed unavailable: its engine is not available`,
            code: 'engine_unavailable',
          },
        });
      continue;
    }
    await call(run, actor, 'createChatCompletion', {
      label: `chat with ${model}`,
      case: name,
      body: { model, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 },
      expectation: { kind: 'status', statuses: [200], reason: `${model}, a chat model the document lists, available` },
    });
  }
}
