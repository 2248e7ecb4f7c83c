// Host-side weights that may hold 16-bit words as stored (model/config.ts HalfTensor, loadHfCheckpoint's keepHalf):
// the one place a HostTensor becomes float32 (tensorFloat32, exact: every half and bfloat16 value is a float32), and
// the byte count a loaded checkpoint holds on the host. Code that needs float32 values (the CPU reference, full
// fine-tuning, SFT merges, checksums, exports) widens through here; a 16-bit base on the device never does.
import type { HalfTensor, HostTensor, HostWeights, ModelWeights } from '../model/config.ts';
import { decodeBF16, decodeF16 } from './half-float.ts';

export function isHalfTensor(t: HostTensor): t is HalfTensor {
  return 'bits' in t;
}

/** Number of elements of a host tensor. */
export function hostTensorLength(t: HostTensor): number {
  return isHalfTensor(t) ? t.bits.length : t.data.length;
}

/** The tensor's values as float32: the f32 array itself, or a widened copy of the 16-bit words. */
export function tensorFloat32(t: HostTensor): Float32Array {
  if (!isHalfTensor(t)) return t.data;
  return t.dtype === 'bf16' ? decodeBF16(t.bits) : decodeF16(t.bits);
}

/** Elements [from, to) of the tensor as float32 (a copy for 16-bit words, a view for f32). */
export function tensorFloat32Range(t: HostTensor, from: number, to: number): Float32Array {
  if (!isHalfTensor(t)) return t.data.subarray(from, to);
  const words = t.bits.subarray(from, to);
  return t.dtype === 'bf16' ? decodeBF16(words) : decodeF16(words);
}

/** Every tensor as float32 (16-bit ones widened; f32 ones shared, not copied). */
export function widenWeights(weights: HostWeights): ModelWeights {
  const out: ModelWeights = new Map();
  for (const [name, t] of weights) out.set(name, { shape: t.shape, data: tensorFloat32(t) });
  return out;
}

/** Number of parameters (elements of every tensor). */
export function hostParameterCount(weights: HostWeights): number {
  let n = 0;
  for (const t of weights.values()) n += hostTensorLength(t);
  return n;
}

/** Bytes the tensors' values take on the host (2 per 16-bit element, 4 per float32 one). */
export function hostWeightsBytes(weights: HostWeights): number {
  let bytes = 0;
  for (const t of weights.values()) bytes += isHalfTensor(t) ? t.bits.byteLength : t.data.byteLength;
  return bytes;
}
