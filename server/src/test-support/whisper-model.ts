// Writes a whisper.cpp ggml model with random weights, in the layout whisper.cpp's loader reads (the magic, the
// hyperparameters, the mel filterbank, the vocabulary, then every tensor by name with its dims and type). No Whisper
// weights can be had on the machines the tests run on; a random model runs the real runtime (encoder, decoder,
// sampling, timestamps, language detection) and costs the same compute as a trained one of the same dimensions, so
// tests and benchmarks assert structure, times and speed — never text, which is garbage (deterministic per seed).
//
// The defaults are tiny (32 wide, 1 layer, the multilingual vocabulary of 51,865): about 4 MB, written in well under a
// second. `whisperDimensions.tiny` / `.base` are the real models' shapes, for measuring speed and memory.
import { closeSync, openSync, statSync, writeSync } from 'node:fs';

export interface WhisperModelShape {
  /** Width of encoder and decoder (n_audio_state = n_text_state). */
  state: number;
  heads: number;
  /** Layers of the encoder and of the decoder. */
  layers: number;
  /** 51,865 multilingual (99 languages), 51,864 English-only (`.en`), 51,866 large-v3 (100 languages). */
  vocab: number;
  mels: number;
  /** 0 = f32, 1 = f16 (matrices and conv weights in f16, the rest f32, as whisper.cpp's converter writes). */
  ftype: 0 | 1;
}

export const whisperDimensions = {
  synthetic: { state: 32, heads: 2, layers: 1, vocab: 51865, mels: 80, ftype: 1 },
  tiny: { state: 384, heads: 6, layers: 4, vocab: 51865, mels: 80, ftype: 1 },
  base: { state: 512, heads: 8, layers: 6, vocab: 51865, mels: 80, ftype: 1 },
} satisfies Record<string, WhisperModelShape>;

const AUDIO_CTX = 1500;
const TEXT_CTX = 448;
const N_FFT = 201;
/** Tokens written to the file (GPT-2's byte-level BPE count); the loader adds the special tokens up to n_vocab. */
const WRITTEN_TOKENS = 50257;

/** A small deterministic PRNG (mulberry32): the same seed gives the same model, so the same garbage output. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Random half-precision bits of magnitude about `scale`: a random sign, mantissa and one of four exponents up to
 * scale's (built directly, since converting a million floats one by one is what made writing slow).
 */
function randomHalf(next: () => number, scale: number): number {
  const top = Math.floor(Math.log2(scale)) + 15;
  const exponent = Math.max(1, top - Math.floor(next() * 4));
  return (next() < 0.5 ? 0x8000 : 0) | (exponent << 10) | Math.floor(next() * 1024);
}

/** Token i: " " first (blank suppression looks it up), then short ASCII words, each valid UTF-8 on its own. */
function token(i: number): string {
  if (i === 0) return ' ';
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  let word = '';
  for (let n = i; n > 0; n = Math.floor(n / 26)) word += letters[n % 26];
  return i % 3 === 0 ? word : ` ${word}`;
}

class ChunkWriter {
  private readonly fd: number;
  private buffer = Buffer.alloc(1 << 20);
  private used = 0;
  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }
  private room(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return;
    this.flush();
    if (bytes > this.buffer.length) this.buffer = Buffer.alloc(bytes);
  }
  int32(value: number): void {
    this.room(4);
    this.used = this.buffer.writeInt32LE(value, this.used);
  }
  bytes(data: Buffer): void {
    this.room(data.length);
    data.copy(this.buffer, this.used);
    this.used += data.length;
  }
  flush(): void {
    writeSync(this.fd, this.buffer, 0, this.used);
    this.used = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Writes the model to `path` and returns its size in bytes. */
export function writeSyntheticWhisperModel(
  path: string,
  shape: WhisperModelShape = whisperDimensions.synthetic,
  seed = 1,
): number {
  const next = random(seed);
  const out = new ChunkWriter(path);
  const { state, heads, layers, vocab, mels, ftype } = shape;
  out.int32(0x67676d6c);
  for (const value of [vocab, AUDIO_CTX, state, heads, layers, TEXT_CTX, state, heads, layers, mels, ftype]) {
    out.int32(value);
  }
  out.int32(mels);
  out.int32(N_FFT);
  const filters = Buffer.alloc(mels * N_FFT * 4);
  for (let i = 0; i < mels * N_FFT; i++) filters.writeFloatLE(next() * 0.01, i * 4);
  out.bytes(filters);
  out.int32(WRITTEN_TOKENS);
  for (let i = 0; i < WRITTEN_TOKENS; i++) {
    const bytes = Buffer.from(token(i), 'utf8');
    out.int32(bytes.length);
    out.bytes(bytes);
  }

  /** kind: `matrix` (f16 in an f16 model), `conv` (likewise), `norm` (ones), `vector` (f32 random). */
  const tensor = (name: string, dims: number[], kind: 'matrix' | 'conv' | 'norm' | 'vector') => {
    const half = ftype === 1 && (kind === 'matrix' || kind === 'conv');
    const count = dims.reduce((a, b) => a * b, 1);
    const nameBytes = Buffer.from(name, 'utf8');
    out.int32(dims.length);
    out.int32(nameBytes.length);
    out.int32(half ? 1 : 0);
    for (const dim of dims) out.int32(dim);
    out.bytes(nameBytes);
    const scale = kind === 'vector' ? 0.02 : 1 / Math.sqrt(dims[0]!);
    if (half) {
      const data = new Uint16Array(count);
      for (let i = 0; i < count; i++) data[i] = randomHalf(next, scale);
      out.bytes(Buffer.from(data.buffer));
    } else {
      const data = new Float32Array(count);
      for (let i = 0; i < count; i++) data[i] = kind === 'norm' ? 1 : (next() * 2 - 1) * scale;
      out.bytes(Buffer.from(data.buffer));
    }
  };
  const block = (prefix: string, cross: boolean) => {
    const attention = (name: string) => {
      tensor(`${prefix}.${name}.query.weight`, [state, state], 'matrix');
      tensor(`${prefix}.${name}.query.bias`, [state], 'vector');
      tensor(`${prefix}.${name}.key.weight`, [state, state], 'matrix');
      tensor(`${prefix}.${name}.value.weight`, [state, state], 'matrix');
      tensor(`${prefix}.${name}.value.bias`, [state], 'vector');
      tensor(`${prefix}.${name}.out.weight`, [state, state], 'matrix');
      tensor(`${prefix}.${name}.out.bias`, [state], 'vector');
    };
    tensor(`${prefix}.mlp_ln.weight`, [state], 'norm');
    tensor(`${prefix}.mlp_ln.bias`, [state], 'vector');
    tensor(`${prefix}.mlp.0.weight`, [state, 4 * state], 'matrix');
    tensor(`${prefix}.mlp.0.bias`, [4 * state], 'vector');
    tensor(`${prefix}.mlp.2.weight`, [4 * state, state], 'matrix');
    tensor(`${prefix}.mlp.2.bias`, [state], 'vector');
    tensor(`${prefix}.attn_ln.weight`, [state], 'norm');
    tensor(`${prefix}.attn_ln.bias`, [state], 'vector');
    attention('attn');
    if (cross) {
      tensor(`${prefix}.cross_attn_ln.weight`, [state], 'norm');
      tensor(`${prefix}.cross_attn_ln.bias`, [state], 'vector');
      attention('cross_attn');
    }
  };

  tensor('encoder.positional_embedding', [state, AUDIO_CTX], 'vector');
  tensor('encoder.conv1.weight', [3, mels, state], 'conv');
  tensor('encoder.conv1.bias', [1, state], 'vector');
  tensor('encoder.conv2.weight', [3, state, state], 'conv');
  tensor('encoder.conv2.bias', [1, state], 'vector');
  tensor('encoder.ln_post.weight', [state], 'norm');
  tensor('encoder.ln_post.bias', [state], 'vector');
  for (let i = 0; i < layers; i++) block(`encoder.blocks.${i}`, false);
  tensor('decoder.positional_embedding', [state, TEXT_CTX], 'vector');
  tensor('decoder.token_embedding.weight', [state, vocab], 'matrix');
  tensor('decoder.ln.weight', [state], 'norm');
  tensor('decoder.ln.bias', [state], 'vector');
  for (let i = 0; i < layers; i++) block(`decoder.blocks.${i}`, true);
  out.close();
  return statSync(path).size;
}
