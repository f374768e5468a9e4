// Checks a whisper.cpp ggml model file before any process loads it. The native loader trusts the file: a bad `ftype`
// aborts the process, a huge vocabulary count makes it allocate without bound (2^31 tokens grew to 22.8 GB), and a file
// cut short after its vocabulary loads "successfully" as an empty model. So the file is walked here with bounded
// reads — magic, hyperparameters within the published models' ranges, `ftype` 0 (f32) or 1 (f16), the mel
// filterbank, a vocabulary of at most 52,000 tokens, then every tensor's header — and it must end exactly after the
// last tensor, with every tensor the hyperparameters call for present once. Quantized files (ftype 2+) are refused:
// this runtime aborts on some of them.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { languagesOfVocabulary } from './languages.ts';

export const GGML_MAGIC = 0x67676d6c;
const MAX_VOCABULARY = 52_000;
const MAX_TOKEN_BYTES = 1024;

export interface WhisperModelInfo {
  /** "tiny", "base", "small", "medium", "large" or "custom", from the layer count as whisper.cpp names them. */
  size: string;
  multilingual: boolean;
  /** Whisper's language codes the model recognises. */
  languages: string[];
  vocabulary: number;
  width: number;
  layers: number;
  ftype: 0 | 1;
  bytes: number;
}

/** Why the file is refused; `reason` is safe to show to API clients (it names no path). */
export class WhisperModelError extends Error {
  override readonly name = 'WhisperModelError';
}

class Reader {
  offset = 0;
  private readonly scratch = Buffer.alloc(MAX_TOKEN_BYTES);
  constructor(
    private readonly fd: number,
    readonly size: number,
  ) {}
  bytes(length: number, what: string): Buffer {
    if (length > this.scratch.length) throw new WhisperModelError(`${what} is implausibly long (${length} bytes)`);
    if (this.offset + length > this.size) throw new WhisperModelError(`the file ends inside ${what} (truncated)`);
    const read = readSync(this.fd, this.scratch, 0, length, this.offset);
    if (read !== length) throw new WhisperModelError(`the file ends inside ${what} (truncated)`);
    this.offset += length;
    return this.scratch.subarray(0, length);
  }
  int32(what: string): number {
    return this.bytes(4, what).readInt32LE(0);
  }
  skip(length: number, what: string): void {
    if (this.offset + length > this.size) throw new WhisperModelError(`the file ends inside ${what} (truncated)`);
    this.offset += length;
  }
}

function sizeName(layers: number): string {
  return { 4: 'tiny', 6: 'base', 12: 'small', 24: 'medium', 32: 'large' }[layers] ?? 'custom';
}

/** The tensors (name → element count, f16-able) that whisper.cpp's loader expects for these hyperparameters. */
function expectedTensors(h: Record<string, number>): Map<string, number> {
  const s = h.n_audio_state!;
  const tensors = new Map<string, number>();
  const add = (name: string, count: number) => tensors.set(name, count);
  const attention = (prefix: string) => {
    for (const part of ['query', 'key', 'value', 'out']) add(`${prefix}.${part}.weight`, s * s);
    for (const part of ['query', 'value', 'out']) add(`${prefix}.${part}.bias`, s);
  };
  const block = (prefix: string, cross: boolean) => {
    add(`${prefix}.mlp_ln.weight`, s);
    add(`${prefix}.mlp_ln.bias`, s);
    add(`${prefix}.mlp.0.weight`, 4 * s * s);
    add(`${prefix}.mlp.0.bias`, 4 * s);
    add(`${prefix}.mlp.2.weight`, 4 * s * s);
    add(`${prefix}.mlp.2.bias`, s);
    add(`${prefix}.attn_ln.weight`, s);
    add(`${prefix}.attn_ln.bias`, s);
    attention(`${prefix}.attn`);
    if (cross) {
      add(`${prefix}.cross_attn_ln.weight`, s);
      add(`${prefix}.cross_attn_ln.bias`, s);
      attention(`${prefix}.cross_attn`);
    }
  };
  add('encoder.positional_embedding', s * h.n_audio_ctx!);
  add('encoder.conv1.weight', 3 * h.n_mels! * s);
  add('encoder.conv1.bias', s);
  add('encoder.conv2.weight', 3 * s * s);
  add('encoder.conv2.bias', s);
  add('encoder.ln_post.weight', s);
  add('encoder.ln_post.bias', s);
  for (let i = 0; i < h.n_audio_layer!; i++) block(`encoder.blocks.${i}`, false);
  add('decoder.positional_embedding', s * h.n_text_ctx!);
  add('decoder.token_embedding.weight', s * h.n_vocab!);
  add('decoder.ln.weight', s);
  add('decoder.ln.bias', s);
  for (let i = 0; i < h.n_text_layer!; i++) block(`decoder.blocks.${i}`, true);
  return tensors;
}

function checkHparams(h: Record<string, number>): void {
  const within = (name: string, min: number, max: number) => {
    const value = h[name]!;
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new WhisperModelError(`its ${name} (${value}) is outside ${min}–${max}`);
    }
  };
  within('n_vocab', 51_000, MAX_VOCABULARY);
  within('n_audio_ctx', 1, 1500);
  within('n_audio_state', 8, 1280);
  within('n_audio_head', 1, 20);
  within('n_audio_layer', 1, 32);
  within('n_text_ctx', 1, 448);
  within('n_text_state', 8, 1280);
  within('n_text_head', 1, 20);
  within('n_text_layer', 1, 32);
  within('n_mels', 80, 128);
  if (h.n_audio_state !== h.n_text_state) throw new WhisperModelError('its encoder and decoder widths differ');
  if (h.n_audio_state! % h.n_audio_head! !== 0 || h.n_text_state! % h.n_text_head! !== 0) {
    throw new WhisperModelError('its width is not a multiple of its attention heads');
  }
  if (h.ftype !== 0 && h.ftype !== 1) {
    throw new WhisperModelError(
      `its weight type (ftype ${h.ftype}) is not supported: use an f16 or f32 model (quantized files are not)`,
    );
  }
}

/** Reads and checks the whole file's structure (without reading the weights); throws WhisperModelError. */
export function inspectWhisperModel(path: string): WhisperModelInfo {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new WhisperModelError(`it cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const reader = new Reader(fd, fstatSync(fd).size);
    if (reader.size < 48 || reader.int32('the magic') >>> 0 !== GGML_MAGIC) {
      throw new WhisperModelError('it is not a whisper.cpp ggml model (bad magic)');
    }
    const names = ['n_vocab', 'n_audio_ctx', 'n_audio_state', 'n_audio_head', 'n_audio_layer', 'n_text_ctx'];
    names.push('n_text_state', 'n_text_head', 'n_text_layer', 'n_mels', 'ftype');
    const h: Record<string, number> = {};
    for (const name of names) h[name] = reader.int32('the hyperparameters');
    checkHparams(h);

    const filterMels = reader.int32('the mel filterbank');
    const filterFft = reader.int32('the mel filterbank');
    if (filterMels !== h.n_mels || filterFft < 1 || filterFft > 1024) {
      throw new WhisperModelError('its mel filterbank does not match its hyperparameters');
    }
    reader.skip(filterMels * filterFft * 4, 'the mel filterbank');

    const tokens = reader.int32('the vocabulary');
    if (tokens < 1 || tokens > h.n_vocab!) throw new WhisperModelError(`its vocabulary count (${tokens}) is not sane`);
    for (let i = 0; i < tokens; i++) {
      const length = reader.int32('the vocabulary');
      if (length < 0 || length > MAX_TOKEN_BYTES) throw new WhisperModelError(`its token ${i} is ${length} bytes long`);
      reader.skip(length, 'the vocabulary');
    }

    const expected = expectedTensors(h);
    const seen = new Set<string>();
    while (reader.offset < reader.size) {
      const dims = reader.int32('a tensor header');
      const nameLength = reader.int32('a tensor header');
      const type = reader.int32('a tensor header');
      if (dims < 1 || dims > 4 || nameLength < 1 || nameLength > 128 || (type !== 0 && type !== 1)) {
        throw new WhisperModelError(`a tensor header at byte ${reader.offset - 12} is malformed`);
      }
      let count = 1;
      for (let d = 0; d < dims; d++) count *= reader.int32('a tensor header');
      const name = reader.bytes(nameLength, 'a tensor name').toString('utf8');
      if (expected.get(name) !== count || seen.has(name)) {
        throw new WhisperModelError(`its tensor "${name}" is unknown, repeated or of the wrong shape`);
      }
      seen.add(name);
      reader.skip(count * (type === 0 ? 4 : 2), `the tensor "${name}"`);
    }
    if (seen.size !== expected.size) {
      throw new WhisperModelError(`it holds ${seen.size} of the ${expected.size} tensors the model needs (truncated)`);
    }
    return {
      size: sizeName(h.n_audio_layer!),
      multilingual: h.n_vocab! >= 51865,
      languages: languagesOfVocabulary(h.n_vocab!),
      vocabulary: h.n_vocab!,
      width: h.n_audio_state!,
      layers: h.n_audio_layer!,
      ftype: h.ftype as 0 | 1,
      bytes: reader.size,
    };
  } finally {
    closeSync(fd);
  }
}
