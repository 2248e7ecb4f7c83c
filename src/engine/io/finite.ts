// Refusing NaN / infinite weights at load time. A diverged run can save NaN or infinite values, and a corrupt or
// badly converted file can hold them; loaded silently they make every log-prob NaN and the run "train" at 0%.
// Every float tensor read from a checkpoint (model weights, full fine-tuning weights, PEFT adapters, optimiser
// moments) is checked, and a bad one is refused naming the file and the tensor. Model weights, the large case, are
// checked inside the copy / decode pass that loading does anyway (decodeFiniteFloat32): a value is NaN or infinite
// exactly when its exponent bits are all ones, tested branch-free on the integer bits while they are in registers.

import { decodeBF16, decodeF16 } from './half-float.ts';
import { copyRange, decodeSafetensorsEntry, type SafetensorsHeaderEntry } from './safetensors.ts';

/** Index of the first NaN or infinite value, or -1 when all are finite. */
export function firstNonFinite(values: Float32Array | Float64Array): number {
  if (
    values instanceof Float32Array &&
    values.byteOffset % 4 === 0 &&
    allFiniteBits(new Int32Array(values.buffer, values.byteOffset, values.length))
  )
    return -1;
  const n = values.length;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v - v !== 0) return i; // v - v is 0 for every finite v and NaN for NaN and +-Infinity
  }
  return -1;
}

/**
 * float32 bits, branch-free: (bits & 0x7f800000) + 0x00800000 carries into the sign bit exactly when the 8
 * exponent bits are all ones (NaN, +-Infinity), so the OR over all values is negative iff one is.
 */
function allFiniteBits(bits: Int32Array): boolean {
  const n = bits.length;
  let acc = 0;
  for (let i = 0; i < n; i++) acc |= (bits[i] & 0x7f800000) + 0x00800000;
  return acc >= 0;
}

/** Throws when `values` holds a NaN or infinite value, naming the file, the tensor, the first bad index and value, and the count. */
export function assertFinite(values: Float32Array | Float64Array, fileName: string, tensor: string): void {
  const first = firstNonFinite(values);
  if (first < 0) return;
  let count = 0;
  for (let i = first; i < values.length; i++) if (!Number.isFinite(values[i])) count++;
  throw new Error(
    `${fileName}: tensor "${tensor}" holds ${count} non-finite value${count > 1 ? 's' : ''} (first: ${String(values[first])} at index ${first} of ${values.length}); ` +
      'refusing to load NaN / infinite weights (saved by a diverged run, or a corrupt file)',
  );
}

/**
 * One float tensor of a safetensors file as a float32 copy, refused (assertFinite's error) when it holds a NaN or
 * infinite value. F32 is copied and BF16 widened in one pass that also tests the bits; F16 tests its 16-bit
 * patterns (exponent 0x7c00) before the table decode; F64 is rounded, then scanned.
 */
export function decodeFiniteFloat32(
  bytes: Uint8Array,
  entry: SafetensorsHeaderEntry,
  fileName: string,
  name: string,
): Float32Array {
  const n = (entry.end - entry.begin) / (entry.dtype === 'F64' ? 8 : entry.dtype === 'F32' ? 4 : 2);
  let out: Float32Array;
  let finite: boolean;
  const at = bytes.byteOffset + entry.begin;
  if (entry.dtype === 'F32' && at % 4 === 0) {
    const src = new Int32Array(bytes.buffer, at, n);
    const dst = new Int32Array(n);
    let acc = 0;
    for (let i = 0; i < n; i++) {
      const b = src[i];
      acc |= (b & 0x7f800000) + 0x00800000;
      dst[i] = b;
    }
    out = new Float32Array(dst.buffer);
    finite = acc >= 0;
  } else if (entry.dtype === 'BF16' || entry.dtype === 'F16') {
    const src =
      at % 2 === 0 ? new Uint16Array(bytes.buffer, at, n) : new Uint16Array(copyRange(bytes, entry.begin, entry.end));
    let acc = 0;
    if (entry.dtype === 'BF16') {
      const dst = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const h = src[i];
        acc |= (h & 0x7f80) + 0x0080; // bit 15 set iff the 8 exponent bits are all ones
        dst[i] = h << 16;
      }
      out = new Float32Array(dst.buffer);
    } else {
      for (let i = 0; i < n; i++) acc |= (src[i] & 0x7c00) + 0x0400; // bit 15 set iff the 5 exponent bits are all ones
      out = decodeF16(src);
    }
    finite = (acc & 0x8000) === 0;
  } else {
    const data = decodeSafetensorsEntry(bytes, entry, fileName, name);
    if (!(data instanceof Float32Array || data instanceof Float64Array))
      throw new Error(`${fileName}: tensor "${name}" has dtype ${entry.dtype}, expected a floating-point dtype`);
    out = data instanceof Float32Array ? data : Float32Array.from(data);
    finite = firstNonFinite(data) < 0;
  }
  if (!finite) assertFinite(out, fileName, name);
  return out;
}

/**
 * One F16 or BF16 tensor of a safetensors file as its 16-bit words, copied into a buffer of its own (so the file's
 * bytes are not kept alive by it), refused with assertFinite's error when a word is NaN or infinite (all exponent
 * bits set: 0x7c00 for F16, 0x7f80 for BF16), tested in the copy pass.
 */
export function decodeFiniteHalfBits(
  bytes: Uint8Array,
  entry: SafetensorsHeaderEntry,
  fileName: string,
  name: string,
): Uint16Array {
  if (entry.dtype !== 'F16' && entry.dtype !== 'BF16')
    throw new Error(`${fileName}: tensor "${name}" has dtype ${entry.dtype}, expected F16 or BF16`);
  const n = (entry.end - entry.begin) / 2;
  const at = bytes.byteOffset + entry.begin;
  const out = new Uint16Array(n);
  if (at % 2 === 0) out.set(new Uint16Array(bytes.buffer, at, n));
  else new Uint8Array(out.buffer).set(bytes.subarray(entry.begin, entry.end));
  const mask = entry.dtype === 'BF16' ? 0x7f80 : 0x7c00;
  const low = entry.dtype === 'BF16' ? 0x0080 : 0x0400;
  let acc = 0;
  for (let i = 0; i < n; i++) acc |= (out[i] & mask) + low; // bit 15 set iff the exponent bits are all ones
  if ((acc & 0x8000) !== 0) assertFinite(entry.dtype === 'BF16' ? decodeBF16(out) : decodeF16(out), fileName, name);
  return out;
}
