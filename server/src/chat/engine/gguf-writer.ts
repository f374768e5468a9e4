// A minimal GGUF (version 3) writer: header, typed key/value metadata, tensor infos and the tensor data aligned to
// `general.alignment`. Enough to write the small test model; it never reads GGUF (node-llama-cpp does that).
import { writeFile } from 'node:fs/promises';

const ALIGNMENT = 32;

/** GGUF metadata value types (gguf.h). */
const enum ValueType {
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
}

export type MetadataValue =
  | { type: 'u32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: readonly string[] }
  | { type: 'f32[]'; value: ArrayLike<number> }
  | { type: 'i32[]'; value: ArrayLike<number> };

export interface GgufTensor {
  name: string;
  /** Dimensions in GGUF order: the first is the innermost (contiguous) one. */
  dims: number[];
  data: Float32Array;
}

/** Collects byte chunks and their total length (the file is built in memory: the test model is a few MB). */
class Bytes {
  chunks: Buffer[] = [];
  length = 0;
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }
  u32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    this.push(b);
  }
  i32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(value);
    this.push(b);
  }
  u64(value: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    this.push(b);
  }
  f32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.push(b);
  }
  string(value: string): void {
    const utf8 = Buffer.from(value, 'utf8');
    this.u64(utf8.length);
    this.push(utf8);
  }
  pad(): void {
    const rest = this.length % ALIGNMENT;
    if (rest !== 0) this.push(Buffer.alloc(ALIGNMENT - rest));
  }
}

function writeValue(out: Bytes, entry: MetadataValue): void {
  switch (entry.type) {
    case 'u32':
      out.u32(ValueType.UINT32);
      out.u32(entry.value);
      return;
    case 'f32':
      out.u32(ValueType.FLOAT32);
      out.f32(entry.value);
      return;
    case 'bool':
      out.u32(ValueType.BOOL);
      out.push(Buffer.from([entry.value ? 1 : 0]));
      return;
    case 'string':
      out.u32(ValueType.STRING);
      out.string(entry.value);
      return;
    case 'string[]':
      out.u32(ValueType.ARRAY);
      out.u32(ValueType.STRING);
      out.u64(entry.value.length);
      for (const item of entry.value) out.string(item);
      return;
    case 'f32[]':
    case 'i32[]':
      out.u32(ValueType.ARRAY);
      out.u32(entry.type === 'f32[]' ? ValueType.FLOAT32 : ValueType.INT32);
      out.u64(entry.value.length);
      for (let i = 0; i < entry.value.length; i++) {
        if (entry.type === 'f32[]') out.f32(entry.value[i]!);
        else out.i32(entry.value[i]!);
      }
      return;
  }
}

/** Serialises a GGUF file with float32 tensors. */
export function encodeGguf(metadata: Record<string, MetadataValue>, tensors: GgufTensor[]): Buffer {
  const out = new Bytes();
  out.push(Buffer.from('GGUF', 'ascii'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    out.string(key);
    writeValue(out, value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    const count = tensor.dims.reduce((a, b) => a * b, 1);
    if (count !== tensor.data.length)
      throw new Error(`tensor ${tensor.name}: ${tensor.data.length} values for ${count}`);
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(dim);
    out.u32(0); // GGML_TYPE_F32
    out.u64(offset);
    offset += Math.ceil((count * 4) / ALIGNMENT) * ALIGNMENT;
  }
  out.pad();
  for (const tensor of tensors) {
    out.push(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    out.pad();
  }
  return Buffer.concat(out.chunks, out.length);
}

export async function writeGguf(
  file: string,
  metadata: Record<string, MetadataValue>,
  tensors: GgufTensor[],
): Promise<void> {
  await writeFile(file, encodeGguf(metadata, tensors));
}
