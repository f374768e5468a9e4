// Chat with streamed tokens: the chat models and their status come from /v3/models; with none available the page
// says so (and how to configure one) instead of offering a box that can only fail. Answers are read as server-sent
// events, token by token, until `data: [DONE]`; an in-band error event ends the answer with the contract's error.
import {
  listModels,
  ScribeApiError,
  streamChatCompletion,
  type ChatModelId,
  type Client,
  type Model,
} from '../../client/src/index.ts';

/** Every model of the server with its status (the page reads the chat models and the transcription languages). */
export async function serverModels(client: Client): Promise<Model[]> {
  const { data, error, response } = await listModels({ client });
  if (!data) throw ScribeApiError.from(response, error);
  return data.data;
}

export async function streamChat(
  client: Client,
  request: { model: ChatModelId; prompt: string; maxTokens: number | undefined; temperature: number | undefined },
  onToken: (text: string) => void,
): Promise<void> {
  // An in-band error ends the loop with a ChatStreamError whose message is the contract's `code: message`.
  for await (const token of streamChatCompletion(client, {
    model: request.model,
    messages: [{ role: 'user', content: request.prompt }],
    max_tokens: request.maxTokens,
    temperature: request.temperature,
  }))
    onToken(token);
}
