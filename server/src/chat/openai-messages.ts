// OpenAI's chat messages read into the engines' messages: `developer` is `system`, text parts are joined (one per
// line), `name` is dropped, and tool-call history is kept. The contract refuses what the models cannot take (a part
// that is not text); what it cannot state is read leniently, so every message it allows is answered: a content that
// is null or absent is empty text, and a tool result that answers no earlier call is a user message stating it.
import type { ChatMessage, OpenAiChatMessage } from '../../../generated/client/types.gen.ts';
import type { PromptMessage } from './engine/engine.ts';

function textOf(message: ChatMessage | OpenAiChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  // Validation admits text parts only (OpenAIChatContentPart).
  return content.map((part) => part.text).join('\n');
}

/** The messages as the engines take them. */
export function promptMessagesOf(messages: (ChatMessage | OpenAiChatMessage)[]): PromptMessage[] {
  const calls = new Set<string>();
  return messages.map((message): PromptMessage => {
    const content = textOf(message);
    if (message.role === 'developer' || message.role === 'system') return { role: 'system', content };
    if (message.role === 'user') return { role: 'user', content };
    if (message.role === 'assistant') {
      const toolCalls = 'tool_calls' in message ? message.tool_calls : undefined;
      if (!toolCalls?.length) return { role: 'assistant', content };
      for (const call of toolCalls) calls.add(call.id);
      return { role: 'assistant', content, tool_calls: toolCalls };
    }
    const id = 'tool_call_id' in message ? message.tool_call_id : undefined;
    if (id === undefined || !calls.has(id)) {
      return { role: 'user', content: `Result of the tool call ${JSON.stringify(id ?? '')}: ${content}` };
    }
    return { role: 'tool', content, tool_call_id: id };
  });
}
