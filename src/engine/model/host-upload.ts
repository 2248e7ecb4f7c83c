// Uploading one host tensor (float32, or 16-bit words as loaded with keep16Bit) into a device tensor of the base's
// storage dtype, with the same bits as widening the whole tensor to float32 and uploading that: 16-bit words go
// as they are when the device stores the same format (f16 -> f16 and bf16 -> bf16 round-trip exactly through
// float32), and are otherwise widened a chunk at a time (bf16 -> f16, f16 -> bf16 and anything -> f32: the backend
// rounds float32 once, as before), so no float32 copy of a whole tensor is ever made on the host.
import type { Backend, Tensor } from '../backend.ts';
import { isHalfTensor, tensorFloat32Range } from '../io/host-weights.ts';
import type { HostTensor } from './config.ts';

/** Elements widened per upload call when formats differ (even, as WebGPU's f16 uploads need): 4 MiB of float32. */
export const WIDEN_CHUNK_ELEMENTS = 1 << 20;

export function uploadHostTensor(
  backend: Backend,
  t: Tensor,
  host: HostTensor,
  chunkElements = WIDEN_CHUNK_ELEMENTS,
): void {
  if (!isHalfTensor(host)) {
    backend.upload(t, host.data);
    return;
  }
  if (t.dtype === host.dtype) {
    backend.upload(t, host.bits);
    return;
  }
  const n = host.bits.length;
  for (let from = 0; from < n; from += chunkElements) {
    const to = Math.min(n, from + chunkElements);
    backend.upload(t, tensorFloat32Range(host, from, to), from);
  }
}
