// Which tensors of a step a WebGPU kernel must bind whole, and whether each fits maxStorageBufferBindingSize (128 MiB
// by the WebGPU spec's defaults; adapters may grant more). Weights and the MLP's wide activations are split over
// buffers by rows and never break it; what does: one sequence's attention-side activations (a pass holds at least a
// whole sequence: model/pass-rows.ts), a decode call's KV cache [B, S, Hkv, Dh] (one layer's keys, or values), and
// its logits [B, V] (generation samples from them whole). For each, the plan names the limit broken and the largest
// workload that fits.
import type { ModelConfig } from '../model/config.ts';
import { kvCacheBytesPerElement } from '../model/kv-cache.ts';
import { widestBoundRowBytes } from '../model/pass-rows.ts';
import type { DecodeShape, MemoryShape } from './memory.ts';
import { planKvCacheDtype } from './memory.ts';

/** One tensor a kernel binds whole: what it is, its bytes, and the workload dimension that scales it. */
export interface BindingNeed {
  tensor: string;
  bytes: number;
  /** 'sequences': sequences decoded together; 'tokens': tokens of one training or prompt sequence */
  scales: 'sequences' | 'tokens';
  /** the largest value of that dimension whose tensor fits the limit (0: not even one fits) */
  fitsUpTo: number;
}

export interface BindingPlan {
  /** maxStorageBufferBindingSize planned against, bytes */
  limit: number;
  /** the largest tensor bound whole */
  largest: BindingNeed;
  /** the tensors over the limit, largest first */
  breaks: BindingNeed[];
}

/** The spec's default maxStorageBufferBindingSize (what a device gets without asking for more). */
export const DEFAULT_BINDING_BYTES = 128 * 1024 * 1024;

function decodeNeeds(cfg: ModelConfig, d: DecodeShape, kvBytes: number, limit: number, label: string): BindingNeed[] {
  if (d.sequences <= 0 || d.newTokens <= 0) return [];
  const B = Math.min(d.sequences, d.decodeBatch ?? d.sequences);
  const S = d.promptTokens + d.newTokens;
  const { numKvHeads: Hkv, headDim: Dh, vocabSize: V } = cfg;
  const perSeqCache = S * Hkv * Dh * kvBytes;
  const perSeqLogits = 4 * V;
  return [
    {
      tensor: `${label} KV cache [${B}, ${S}, ${Hkv}, ${Dh}]`,
      bytes: B * perSeqCache,
      scales: 'sequences',
      fitsUpTo: Math.floor(limit / perSeqCache),
    },
    {
      tensor: `${label} logits [${B}, ${V}]`,
      bytes: B * perSeqLogits,
      scales: 'sequences',
      fitsUpTo: Math.floor(limit / perSeqLogits),
    },
  ];
}

/** The tensors of `shape`'s step that kernels bind whole, against a binding limit of `limit` bytes. */
export function planBindings(cfg: ModelConfig, shape: MemoryShape, limit = DEFAULT_BINDING_BYTES): BindingPlan {
  const row = widestBoundRowBytes(cfg);
  const widest = row / 4;
  const kvBytes = kvCacheBytesPerElement(planKvCacheDtype(shape));
  const needs: BindingNeed[] = [];
  const tokens = Math.max(shape.gradient.tokens, shape.decode.promptTokens, shape.evalDecode?.promptTokens ?? 0);
  needs.push({
    tensor: `one sequence's attention activations [${tokens}, ${widest}]`,
    bytes: tokens * row,
    scales: 'tokens',
    fitsUpTo: Math.floor(limit / row),
  });
  needs.push(...decodeNeeds(cfg, shape.decode, kvBytes, limit, 'rollout'));
  if (shape.evalDecode) needs.push(...decodeNeeds(cfg, shape.evalDecode, kvBytes, limit, 'evaluation'));
  const sorted = needs.toSorted((a, b) => b.bytes - a.bytes);
  return { limit, largest: sorted[0], breaks: sorted.filter((n) => n.bytes > limit) };
}
