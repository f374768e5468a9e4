// The tests' chat model: the tiny GGUF written once per test process into a temp dir (≈ 4.8 MB, well under a second),
// removed when the process exits. Also an independent prompt count: the ChatML text rendered here by hand and
// tokenized by the model's own tokenizer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LlamaModel } from 'node-llama-cpp';
import type { ChatMessage } from '../../../generated/client/types.gen.ts';
import { llamaRuntime } from './engine/llama-engine.ts';
import { writeTinyModel } from './engine/tiny-model.ts';

let written: Promise<string> | undefined;

export function tinyModelPath(): Promise<string> {
  written ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scribe-tiny-gguf-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'tiny.gguf');
    await writeTinyModel(file);
    return file;
  })();
  return written;
}

let loaded: Promise<LlamaModel> | undefined;

/** The tiny model loaded by the test itself (not the server's copy). */
export function tinyModel(): Promise<LlamaModel> {
  loaded ??= (async () => (await llamaRuntime()).loadModel({ modelPath: await tinyModelPath() }))();
  return loaded;
}

/** Prompt tokens as the contract defines them: BOS + the ChatML rendering of the messages + the assistant header. */
export async function expectedPromptTokens(messages: ChatMessage[]): Promise<number> {
  const model = await tinyModel();
  const rendered =
    messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';
  return 1 + model.tokenize(rendered, true).length;
}

export interface StreamEvents {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary chunk fields
  payloads: any[];
  content: string;
  done: boolean;
}

/** The events of an SSE body (the contract check has already validated each of them). */
export function parseEvents(text: string): StreamEvents {
  const datas = text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => event.slice('data: '.length));
  const done = datas.at(-1) === '[DONE]';
  const payloads = datas.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as unknown);
  const content = payloads
    .map((p) => (p as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content ?? '')
    .join('');
  return { payloads, content, done };
}
