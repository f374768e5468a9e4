// Which engine serves each chat model id, from config: a GGUF path → the llama engine, `openai:<base-url>#<model>`
// → the openai-compatible upstream engine, unset → none (the model is listed unavailable and answers 503).
import type { ChatConfig, ChatModelId } from './config.ts';
import type { ChatEngine } from './engine/engine.ts';
import { createLlamaWorkerEngine } from './engine/llama-worker-engine.ts';
import { createOpenAiCompatibleChatEngine } from './engine/openai-compatible.ts';

export type ChatEngines = Partial<Record<ChatModelId, ChatEngine>> & { close(): Promise<void> };

export async function createChatEngines(config: ChatConfig): Promise<ChatEngines> {
  const engines: Partial<Record<ChatModelId, ChatEngine>> = {};
  try {
    for (const [id, spec] of Object.entries(config.models) as [ChatModelId, string][]) {
      const upstream = /^openai:(https?:\/\/[^#]+)#(.+)$/.exec(spec);
      if (upstream) {
        engines[id] = createOpenAiCompatibleChatEngine({
          baseUrl: upstream[1]!,
          model: upstream[2]!,
          apiKey: config.upstreamApiKey ?? '',
        });
        continue;
      }
      if (spec.startsWith('openai:')) throw new Error(`${id}: "${spec}" is not openai:<base-url>#<model>`);
      try {
        engines[id] = await createLlamaWorkerEngine({
          modelPath: spec,
          contextSize: config.contextSize,
          parallel: config.parallel,
          threads: config.threads,
          maxWaiting: config.maxWaiting,
          maxWaitingPerAccount: config.maxWaitingPerAccount,
        });
      } catch (error) {
        throw new Error(`${id}: cannot load the GGUF model ${spec}: ${(error as Error).message}`, { cause: error });
      }
    }
  } catch (error) {
    await Promise.all(Object.values(engines).map((engine) => engine.close()));
    throw error;
  }
  return {
    ...engines,
    async close() {
      await Promise.all(Object.values(engines).map((engine) => engine.close()));
    },
  };
}
