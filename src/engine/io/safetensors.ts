// Reading and writing the safetensors format (Hugging Face checkpoints, PEFT adapters, our golden fixtures):
//   [u64 little-endian header length N] [N bytes of JSON header] [raw little-endian tensor data]
// The header maps tensor names to {dtype, shape, data_offsets: [begin, end)} relative to the data block, plus an
// optional "__metadata__" object of strings. Every check names the file, because checkpoints come in shards.
import { decodeBF16, decodeF16, encodeBF16, encodeF16 } from './half-float.ts';

/** The dtypes this reader understands. Floats decode to Float32Array (F64 to Float64Array). */
export type SafetensorsDType = 'F64' | 'F32' | 'F16' | 'BF16' | 'I64' | 'I32';

const BYTES_PER_ELEMENT: Record<SafetensorsDType, number> = { F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4 };

export type SafetensorsData = Float32Array | Float64Array | Int32Array | number[];

export interface SafetensorsTensor {
  /** dtype as stored in the file */
  dtype: SafetensorsDType;
  shape: number[];
  /** F32/F16/BF16 -> Float32Array, F64 -> Float64Array, I32 -> Int32Array, I64 -> number[] */
  data: SafetensorsData;
}

export interface SafetensorsFile {
  tensors: Map<string, SafetensorsTensor>;
  metadata: Record<string, string>;
}

/** One header entry: where a tensor's bytes are, before decoding. */
export interface SafetensorsHeaderEntry {
  dtype: SafetensorsDType;
  shape: number[];
  /** absolute byte range in the file */
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  entries: Map<string, SafetensorsHeaderEntry>;
  metadata: Record<string, string>;
}

/** Tensor to write: data length must equal the product of the shape. */
export interface WritableTensor {
  dtype: SafetensorsDType;
  shape: readonly number[];
  data: ArrayLike<number>;
}

/** Header length is stored as a u64; anything above this is certainly corrupt (HF's own limit is 100 MB). */
const MAX_HEADER_BYTES = 100_000_000;

function isDType(x: unknown): x is SafetensorsDType {
  return typeof x === 'string' && Object.hasOwn(BYTES_PER_ELEMENT, x);
}

function product(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Parse and validate the header without decoding any tensor. */
export function readSafetensorsHeader(bytes: Uint8Array, fileName: string): SafetensorsHeader {
  const fail = (problem: string): never => {
    throw new Error(`${fileName}: ${problem}`);
  };
  if (bytes.length < 8) fail(`truncated safetensors file: ${bytes.length} bytes, fewer than the 8-byte header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength > MAX_HEADER_BYTES)
    fail(`safetensors header length ${headerLength} is implausibly large (corrupt file?)`);
  if (8 + headerLength > bytes.length) {
    fail(
      `truncated safetensors file: header length ${headerLength} runs past the end of the file (${bytes.length} bytes)`,
    );
  }
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLength)));
  } catch (e) {
    return fail(`invalid JSON in safetensors header: ${(e as Error).message}`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    fail('safetensors header is not a JSON object');

  const dataStart = 8 + headerLength;
  const dataLength = bytes.length - dataStart;
  const entries = new Map<string, SafetensorsHeaderEntry>();
  let metadata: Record<string, string> = {};
  for (const [name, raw] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
        fail('"__metadata__" must be an object of strings');
      metadata = Object.fromEntries(Object.entries(raw as object).map(([k, v]) => [k, String(v)]));
      continue;
    }
    const where = `tensor "${name}"`;
    if (typeof raw !== 'object' || raw === null) fail(`${where}: header entry is not an object`);
    const { dtype, shape, data_offsets: offsets } = raw as Record<string, unknown>;
    if (!isDType(dtype))
      fail(
        `${where}: unsupported dtype ${JSON.stringify(dtype)} (supported: ${Object.keys(BYTES_PER_ELEMENT).join(', ')})`,
      );
    const dt = dtype as SafetensorsDType;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      fail(`${where}: shape ${JSON.stringify(shape)} is not a list of non-negative integers`);
    }
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0)) {
      fail(`${where}: data_offsets ${JSON.stringify(offsets)} is not a pair of non-negative integers`);
    }
    const [begin, end] = offsets as [number, number];
    if (begin > end || end > dataLength) {
      fail(
        `${where}: data_offsets [${begin}, ${end}] out of range (data block is ${dataLength} bytes; truncated file?)`,
      );
    }
    const expectedBytes = product(shape as number[]) * BYTES_PER_ELEMENT[dt];
    if (end - begin !== expectedBytes) {
      fail(
        `${where}: shape [${(shape as number[]).join(', ')}] x ${dt} needs ${expectedBytes} bytes but data_offsets span ${end - begin}`,
      );
    }
    entries.set(name, {
      dtype: dt,
      shape: (shape as number[]).slice(),
      begin: dataStart + begin,
      end: dataStart + end,
    });
  }
  const byBegin = [...entries.entries()].filter(([, e]) => e.end > e.begin).toSorted((a, b) => a[1].begin - b[1].begin);
  for (let i = 1; i < byBegin.length; i++) {
    const [prevName, prev] = byBegin[i - 1];
    const [name, cur] = byBegin[i];
    if (cur.begin < prev.end) fail(`tensors "${prevName}" and "${name}" have overlapping data_offsets`);
  }
  return { entries, metadata };
}

/** A copy of bytes [begin, end) of a view, as its own ArrayBuffer. (Not `bytes.slice(...).buffer`: on a Node
 *  Buffer `slice` returns a view, whose `.buffer` is the whole underlying memory, not the range.) */
export function copyRange(bytes: Uint8Array, begin: number, end: number): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset + begin, bytes.byteOffset + end) as ArrayBuffer;
}

/** Decode one tensor's bytes (copied, so the result is aligned and independent of the file buffer). */
export function decodeSafetensorsEntry(
  bytes: Uint8Array,
  entry: SafetensorsHeaderEntry,
  fileName: string,
  name: string,
): SafetensorsData {
  const raw = copyRange(bytes, entry.begin, entry.end);
  switch (entry.dtype) {
    case 'F32':
      return new Float32Array(raw);
    case 'F64':
      return new Float64Array(raw);
    case 'F16':
      return decodeF16(new Uint16Array(raw));
    case 'BF16':
      return decodeBF16(new Uint16Array(raw));
    case 'I32':
      return new Int32Array(raw);
    case 'I64': {
      const big = new BigInt64Array(raw);
      const out: number[] = Array.from({ length: big.length }, () => 0);
      for (let i = 0; i < big.length; i++) {
        const v = Number(big[i]);
        if (!Number.isSafeInteger(v))
          throw new Error(
            `${fileName}: tensor "${name}": I64 value ${big[i]} at index ${i} is too large for a JS number`,
          );
        out[i] = v;
      }
      return out;
    }
  }
}

/** Parse a whole safetensors file and decode every tensor. */
export function parseSafetensors(bytes: Uint8Array, fileName: string): SafetensorsFile {
  const { entries, metadata } = readSafetensorsHeader(bytes, fileName);
  const tensors = new Map<string, SafetensorsTensor>();
  for (const [name, entry] of entries) {
    tensors.set(name, {
      dtype: entry.dtype,
      shape: entry.shape,
      data: decodeSafetensorsEntry(bytes, entry, fileName, name),
    });
  }
  return { tensors, metadata };
}

/** The tensor as float32 values (F32, F16, BF16 exact; F64 rounded); an error for integer tensors. */
export function toFloat32(tensor: SafetensorsTensor, fileName: string, name: string): Float32Array {
  if (tensor.data instanceof Float32Array) return tensor.data;
  if (tensor.data instanceof Float64Array) return Float32Array.from(tensor.data);
  throw new Error(
    `${fileName}: tensor "${name}" has dtype ${tensor.dtype}, expected a floating-point dtype (F32, F16, BF16, F64)`,
  );
}

function encodeData(t: WritableTensor, name: string): Uint8Array {
  const n = t.data.length;
  switch (t.dtype) {
    case 'F32':
      return new Uint8Array(Float32Array.from(t.data).buffer);
    case 'F64':
      return new Uint8Array(Float64Array.from(t.data).buffer);
    case 'F16':
      return new Uint8Array(encodeF16(t.data).buffer);
    case 'BF16':
      return new Uint8Array(encodeBF16(t.data).buffer);
    case 'I32':
      return new Uint8Array(Int32Array.from(t.data).buffer);
    case 'I64': {
      const out = new BigInt64Array(n);
      for (let i = 0; i < n; i++) {
        if (!Number.isSafeInteger(t.data[i]))
          throw new Error(`writeSafetensors: tensor "${name}": ${t.data[i]} at index ${i} is not an integer`);
        out[i] = BigInt(t.data[i]);
      }
      return new Uint8Array(out.buffer);
    }
  }
}

/**
 * Serialise tensors in the Hugging Face layout. Tensors are laid out widest dtype first (then by name), and the
 * header is padded with spaces to a multiple of 8, so every tensor starts at an offset aligned to its element size.
 */
export function writeSafetensors(
  tensors: Map<string, WritableTensor> | Record<string, WritableTensor>,
  metadata?: Record<string, string>,
): Uint8Array {
  const list = (tensors instanceof Map ? [...tensors.entries()] : Object.entries(tensors)).toSorted(
    ([na, a], [nb, b]) => BYTES_PER_ELEMENT[b.dtype] - BYTES_PER_ELEMENT[a.dtype] || (na < nb ? -1 : na > nb ? 1 : 0),
  );
  const header: Record<string, unknown> = {};
  if (metadata && Object.keys(metadata).length > 0) header['__metadata__'] = metadata;
  const blobs: Uint8Array[] = [];
  let offset = 0;
  for (const [name, t] of list) {
    if (name === '__metadata__')
      throw new Error('writeSafetensors: "__metadata__" is reserved and cannot name a tensor');
    if (!isDType(t.dtype)) throw new Error(`writeSafetensors: tensor "${name}": unsupported dtype ${String(t.dtype)}`);
    if (product(t.shape) !== t.data.length) {
      throw new Error(
        `writeSafetensors: tensor "${name}": shape [${t.shape.join(', ')}] has ${product(t.shape)} elements but data has ${t.data.length}`,
      );
    }
    const blob = encodeData(t, name);
    header[name] = { dtype: t.dtype, shape: [...t.shape], data_offsets: [offset, offset + blob.length] };
    blobs.push(blob);
    offset += blob.length;
  }
  let json = JSON.stringify(header);
  const jsonBytes = new TextEncoder().encode(json);
  const padding = (8 - (jsonBytes.length % 8)) % 8;
  json += ' '.repeat(padding);
  const headerBytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let at = 8 + headerBytes.length;
  for (const blob of blobs) {
    out.set(blob, at);
    at += blob.length;
  }
  return out;
}
