// The `openai-compatible` engine: forwards to an upstream's `POST {base}/chat/completions` (OpenAI, vLLM, llama.cpp's
// server, a second Scribe) with `stream: true`, and passes its content deltas on as the request paces them
// (GenerateRequest.deltaIntervalMs; each as it arrives when it sets none). Usage comes from the upstream's usage chunk
// (`stream_options.include_usage`); an upstream that sends none is counted as one token per content delta. The prompt
// measure before generating is an estimate (4 characters per token plus 4 per message, and the tools' JSON), used only
// for the reservation: the charge is what the upstream reports. Tools are passed through as the caller gave them and
// the upstream's streamed tool calls read back piece by piece (the caller's answer gets ids of its own).
import { deltaSink } from '../delta-pacer.ts';
import {
  ChatEngineError,
  type GenerateRequest,
  type GenerateResult,
  type UpstreamChatEngine,
  type PromptMessage,
  type ToolUse,
} from './engine.ts';

export interface OpenAiCompatibleChatOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** The upstream's limit of answer tokens (OpenAI-style APIs cap it per model); the contract's 32000 by default. */
  maxAnswerTokens?: number;
}

interface UpstreamToolCallDelta {
  index?: number;
  function?: { name?: string | null; arguments?: string | null };
}

interface UpstreamChunk {
  choices?: {
    delta?: { content?: string | null; tool_calls?: UpstreamToolCallDelta[] | null };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string };
}

const estimate = (messages: PromptMessage[], tools?: ToolUse) =>
  messages.reduce(
    (sum, m) => sum + 4 + Math.ceil((m.role.length + m.content.length + JSON.stringify(m.tool_calls ?? '').length) / 4),
    3 + (tools ? Math.ceil(JSON.stringify(tools.functions).length / 4) : 0),
  );

/** The tools in OpenAI's request shape. */
const upstreamToolsOf = (tools: ToolUse) => ({
  tools: tools.functions.map(({ name, description, parameters }) => ({
    type: 'function',
    function: { name, ...(description !== undefined ? { description } : {}), parameters },
  })),
  tool_choice: typeof tools.choice === 'object' ? { type: 'function', function: tools.choice } : tools.choice,
  parallel_tool_calls: tools.parallel,
});

/** Splits a server-sent event stream into the payloads of its `data:` lines. */
async function* ssePayloads(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) yield data;
    }
  }
}

export function createOpenAiCompatibleChatEngine(options: OpenAiCompatibleChatOptions): UpstreamChatEngine {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const maxAnswerTokens = options.maxAnswerTokens ?? 32000;

  return {
    kind: 'openai-compatible',
    contextWindow: undefined,

    async measure(messages, _format, tools) {
      return { promptTokens: estimate(messages, tools), maxAnswerTokens };
    },

    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const body = {
        model: options.model,
        // An assistant message that only calls tools has no text: OpenAI's shape for that is `content: null`.
        messages: request.messages.map((m) => (m.tool_calls && !m.content ? { ...m, content: null } : m)),
        temperature: request.temperature,
        // No limit was asked for: the upstream applies its own (a model's cap may be below the contract's 32000).
        ...(request.maxTokens < maxAnswerTokens ? { max_tokens: request.maxTokens } : {}),
        stream: true,
        stream_options: { include_usage: true },
        ...(request.format.type === 'json_object' ? { response_format: { type: 'json_object' } } : {}),
        ...(request.format.type === 'json_schema'
          ? { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: request.format.schema } } }
          : {}),
        ...(request.tools ? upstreamToolsOf(request.tools) : {}),
      };
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'text/event-stream',
            ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify(body),
          signal: request.signal,
        });
      } catch (error) {
        if (request.signal.aborted) throw new ChatEngineError('cancelled', 'The client went away.', 0, false);
        throw new ChatEngineError(
          'engine_unavailable',
          `The upstream chat server at ${options.baseUrl} is unreachable: ${(error as Error).message}`,
          0,
          false,
        );
      }
      if (!response.ok || !response.body) {
        const text = await response.text().catch(() => '');
        let message = text.slice(0, 300);
        try {
          message = (JSON.parse(text) as UpstreamChunk).error?.message ?? message;
        } catch {
          // not JSON: keep the text
        }
        throw new ChatEngineError(
          response.status === 503 ? 'engine_unavailable' : 'internal_error',
          `The upstream chat server answered ${response.status}: ${message}`,
          0,
          false,
        );
      }

      let content = '';
      let deltas = 0;
      const sink = deltaSink(request.onDelta, request.deltaIntervalMs);
      let finishReason: GenerateResult['finishReason'] = 'stop';
      let usage: UpstreamChunk['usage'];
      const toolCalls: { name: string; arguments: string }[] = [];
      try {
        for await (const payload of ssePayloads(response.body)) {
          if (payload === '[DONE]') break;
          const chunk = JSON.parse(payload) as UpstreamChunk;
          if (chunk.error) throw new Error(chunk.error.message ?? 'the upstream failed mid-answer');
          if (chunk.usage) usage = chunk.usage;
          const choice = chunk.choices?.[0];
          const text = choice?.delta?.content;
          if (text) {
            content += text;
            deltas++;
            sink.add(text);
          }
          for (const piece of choice?.delta?.tool_calls ?? []) {
            const index = piece.index ?? 0;
            let call = toolCalls[index];
            if (!call) {
              call = toolCalls[index] = { name: piece.function?.name ?? '', arguments: '' };
              sink.end();
              request.onToolCall?.({ index, name: call.name, arguments: '' });
            }
            const fragment = piece.function?.arguments;
            if (fragment) {
              call.arguments += fragment;
              deltas++;
              request.onToolCall?.({ index, arguments: fragment });
            }
          }
          if (choice?.finish_reason === 'length') finishReason = 'length';
          if (choice?.finish_reason === 'tool_calls' || choice?.finish_reason === 'function_call')
            finishReason = 'tool_calls';
        }
      } catch (error) {
        if (request.signal.aborted) throw new ChatEngineError('cancelled', 'The client went away.', deltas);
        throw new ChatEngineError(
          'internal_error',
          `The upstream chat server failed mid-answer: ${(error as Error).message}`,
          usage?.completion_tokens ?? deltas,
        );
      } finally {
        sink.end();
      }
      const called = toolCalls.filter(Boolean);
      return {
        content,
        ...(called.length ? { toolCalls: called } : {}),
        finishReason: called.length && finishReason === 'stop' ? 'tool_calls' : finishReason,
        promptTokens: usage?.prompt_tokens ?? estimate(request.messages, request.tools),
        completionTokens: usage?.completion_tokens ?? deltas,
      };
    },

    async close() {},
  };
}
