// Inference copies of LoRA-adapted weights in the fused layout the decoder's inference path reads (layer.ts
// layerForwardFused): per layer, q, k, v concatenated into one [(H+2Hkv)·Dh, D] matrix (and their biases into one
// vector), gate and up into one [2F, D] matrix, and o, down as they are; every targeted projection is
// W' = W + (alpha/r)·B·A. So a decode step runs 9 kernels per layer (no low-rank matmuls, one matmul for q, k, v and
// one for gate, up). The copy is allocated once (untargeted parts copied from the base then, which is frozen) and
// its targeted parts are refreshed on the device after each optimiser step. Training passes run the low-rank form,
// or over a small model merge each projection themselves (lora-train-merge.ts).
// Over an f16 base on WebGPU the copy's matrices are f16 too (mergedDtype): each sum is formed in f32 and rounded
// once by copyRows into the halves.
import type { Backend, BackendKind, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import type { DecoderParams, LayerParams } from './params.ts';
import { projectionDims, type LoraAdapter, type LoraPair, type LoraTarget } from './lora.ts';
import { copyTensor, tensorFrom } from './device-ops.ts';

/** One decoder layer with concatenated projections (inference only). */
export interface FusedLayer {
  inputNorm: Tensor; // [D]
  postNorm: Tensor; // [D]
  /** [(H+2Hkv)·Dh, D]: rows of q, then k, then v */
  qkv: Tensor;
  /** [(H+2Hkv)·Dh] or null without attention biases */
  qkvBias: Tensor | null;
  o: Tensor; // [D, H·Dh] (the base's when o is not targeted)
  /** [2F, D]: rows of gate, then up */
  gateUp: Tensor;
  down: Tensor; // [D, F] (the base's when down is not targeted)
}

export interface MergedWeights {
  /** embedding, final norm and LM head (the base's); layers: the base's, use `fused` for the merged layers */
  params: DecoderParams;
  fused: FusedLayer[];
  /** tensors owned by the merged copy */
  owned: Tensor[];
}

/** Where each projection lives in the fused layout: tensor kind and first row. */
function slot(cfg: ModelConfig, t: LoraTarget): { into: 'qkv' | 'gateUp' | 'o' | 'down'; row0: number } {
  const qRows = cfg.numHeads * cfg.headDim,
    kvRows = cfg.numKvHeads * cfg.headDim;
  switch (t) {
    case 'q':
      return { into: 'qkv', row0: 0 };
    case 'k':
      return { into: 'qkv', row0: qRows };
    case 'v':
      return { into: 'qkv', row0: qRows + kvRows };
    case 'gate':
      return { into: 'gateUp', row0: 0 };
    case 'up':
      return { into: 'gateUp', row0: cfg.intermediateSize };
    case 'o':
      return { into: 'o', row0: 0 };
    case 'down':
      return { into: 'down', row0: 0 };
  }
}

/** Storage of the merged copy's matrices: f16 halves on WebGPU over an f16 base (half the memory and the bytes a
 *  decode step reads; the merged sum W + s·B·A is formed in f32 and rounded once), else f32. */
export function mergedDtype(backendKind: BackendKind, baseDtype: string): 'f32' | 'f16' {
  return backendKind === 'webgpu' && baseDtype === 'f16' ? 'f16' : 'f32';
}

/** Bytes a merged copy for `adapter` costs (the fused q,k,v and gate,up of every layer, plus o and down when
 *  targeted, at 2 bytes each when stored as f16, plus the concatenated biases in f32). */
export function mergedBytes(cfg: ModelConfig, adapter: LoraAdapter, dtype: 'f32' | 'f16' = 'f32'): number {
  return mergedBytesOf(cfg, adapter.targets, dtype);
}

/** mergedBytes for LoRA `targets` (the planner's figure too). */
export function mergedBytesOf(cfg: ModelConfig, targets: readonly LoraTarget[], dtype: 'f32' | 'f16'): number {
  const biases = cfg.attentionBias ? cfg.numLayers * (cfg.numHeads + 2 * cfg.numKvHeads) * cfg.headDim : 0;
  return (dtype === 'f16' ? 2 : 4) * (mergedFloats(cfg, targets) - biases) + 4 * biases;
}

/** Floats of a merged copy for LoRA `targets` (the planner's figure too, plan/memory.ts). */
export function mergedFloats(cfg: ModelConfig, targets: readonly LoraTarget[]): number {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  const nQkv = (H + 2 * Hkv) * Dh;
  let perLayer = nQkv * D + 2 * F * D + (cfg.attentionBias ? nQkv : 0);
  if (targets.includes('o')) perLayer += D * H * Dh;
  if (targets.includes('down')) perLayer += D * F;
  return cfg.numLayers * perLayer;
}

/** The merge rule's caps (mergeLoraAuto). On the CPU and WASM backends a decode step is bound by arithmetic, which
 *  the merge barely changes (LoRA adds 2r(in+out) of in·out multiply-adds per row), and memory is scarce (4 GiB). */
export const MERGE_CPU_MAX_BYTES = 256 * 1024 * 1024;
/** On WebGPU a decode step is bound by dispatches and weight reads: the merge takes it from 17 + 2 per LoRA target
 *  kernels per layer to 9. WebGPU does not tell the page how much memory the device has, so unless the backend was
 *  given a budget (maxTotalBytes) the copy is made when it takes at most this much: every catalog model up to
 *  ~1.7B parameters with LoRA on all projections (copy in f32 / f16: Qwen2.5-0.5B 1.4 / 0.7 GB, Qwen2.5-1.5B
 *  5.2 / 2.6 GB, SmolLM2-1.7B 6.4 / 3.2 GB). */
export const MERGE_WEBGPU_MAX_BYTES = 8 * 1024 ** 3;

/** What the 'auto' merge rule looks at. */
export interface MergeRuleInput {
  backend: BackendKind;
  /** the frozen base is stored as f32 */
  baseF32: boolean;
  /** bytes of the inference copy (mergedBytes) */
  copyBytes: number;
  /** the largest fused tensor fits one storage binding (largestMergedTensorBytes) */
  fitsBinding: boolean;
  /** bytes the backend allows live at once (Infinity when unknown) and those live now */
  maxTotalBytes: number;
  liveBytes: number;
}

/** The 'auto' rule (memory vs speed), shared by EnginePolicy and the planner (plan/memory.ts): merge when each
 *  fused tensor fits a binding, the copy takes at most half of the memory left (when the backend knows its
 *  total), and on CPU / WASM the base is f32 and the copy at most MERGE_CPU_MAX_BYTES, on WebGPU at most
 *  MERGE_WEBGPU_MAX_BYTES (any base dtype: the copy is f16 over an f16 base, else f32; mergedDtype). */
export function mergeLoraAuto(r: MergeRuleInput): boolean {
  if (!r.fitsBinding) return false;
  if (Number.isFinite(r.maxTotalBytes) && r.copyBytes > (r.maxTotalBytes - r.liveBytes) / 2) return false;
  if (r.backend === 'webgpu') return r.copyBytes <= MERGE_WEBGPU_MAX_BYTES;
  return r.baseF32 && r.copyBytes <= MERGE_CPU_MAX_BYTES;
}

/** Largest single tensor of the fused layout, in bytes (each must fit one storage binding on WebGPU). */
export function largestMergedTensorBytes(cfg: ModelConfig): number {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  return 4 * D * Math.max((H + 2 * Hkv) * Dh, 2 * F);
}

/** dst := src as f32 (same element count). A half-precision source (f16 / bf16 base weights) is widened by the
 *  `embedding` kernel, a gather of every row, which reads halves on every backend (axpby reads them on WebGPU
 *  only). */
function widen(be: Backend, src: Tensor, dst: Tensor): void {
  if (src.dtype === 'f32') {
    copyTensor(be, src, dst);
    return;
  }
  const cols = src.shape.length === 2 ? src.shape[1] : 1;
  const rows = src.size / cols;
  const ids = tensorFrom(
    be,
    [rows],
    Int32Array.from({ length: rows }, (_, i) => i),
    `merge.rows.${rows}`,
  );
  try {
    be.run('embedding', { t: { ids, table: src, out: dst }, p: { R: rows, D: cols } });
  } finally {
    be.free(ids);
  }
}

/** dst rows [row0, row0 + rows of src) := src, a matrix or a vector (one element a row); a half-precision source
 *  goes through an f32 copy. */
function copyInto(be: Backend, src: Tensor, dst: Tensor, row0: number, tmp: () => Tensor): void {
  const cols = src.shape.length === 2 ? src.shape[1] : 1;
  const rows = src.size / cols;
  let from = src;
  if (src.dtype !== 'f32') {
    from = tmp();
    widen(be, src, from);
  }
  be.run('copyRows', { t: { src: from, dst }, p: { B: 1, T: rows, W: cols, Sdst: dst.shape[0], dstRow0: row0 } });
}

/** Allocates the fused copy, fills it from the base and merges the adapter's current A, B. */
export function allocMerged(be: Backend, cfg: ModelConfig, base: DecoderParams, adapter: LoraAdapter): MergedWeights {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  const nQkv = (H + 2 * Hkv) * Dh;
  const owned: Tensor[] = [];
  const dtype = mergedDtype(be.kind, base.layers[0].q.dtype);
  const own = (shape: number[], label: string, kind: 'f32' | 'f16' = dtype): Tensor => {
    const t = be.alloc(shape, kind, `merged:${adapter.name}:${label}`);
    owned.push(t);
    return t;
  };
  try {
    const scratch = new Map<string, Tensor>();
    const tmpOf = (shape: readonly number[]) => (): Tensor => {
      const key = shape.join('x');
      let t = scratch.get(key);
      if (!t) scratch.set(key, (t = be.alloc(shape, 'f32', `merge.tmp.${key}`)));
      return t;
    };
    const fused = base.layers.map((layer, l): FusedLayer => {
      const qkv = own([nQkv, D], `layers.${l}.qkv`);
      const gateUp = own([2 * F, D], `layers.${l}.gateUp`);
      for (const t of ['q', 'k', 'v'] as const) copyInto(be, layer[t], qkv, slot(cfg, t).row0, tmpOf(layer[t].shape));
      for (const t of ['gate', 'up'] as const) copyInto(be, layer[t], gateUp, slot(cfg, t).row0, tmpOf(layer[t].shape));
      let qkvBias: Tensor | null = null;
      if (layer.qBias && layer.kBias && layer.vBias) {
        qkvBias = own([nQkv], `layers.${l}.qkvBias`, 'f32');
        for (const [b, row0] of [
          [layer.qBias, 0],
          [layer.kBias, H * Dh],
          [layer.vBias, (H + Hkv) * Dh],
        ] as const) {
          copyInto(be, b, qkvBias, row0, tmpOf(b.shape));
        }
      }
      const o = adapter.targets.includes('o') ? own([D, H * Dh], `layers.${l}.o`) : layer.o;
      const down = adapter.targets.includes('down') ? own([D, F], `layers.${l}.down`) : layer.down;
      return { inputNorm: layer.inputNorm, postNorm: layer.postNorm, qkv, qkvBias, o, gateUp, down };
    });
    for (const t of scratch.values()) be.free(t);
    const merged = { params: base, fused, owned };
    refreshMerged(be, cfg, base, adapter, merged);
    return merged;
  } catch (e) {
    for (const t of owned) be.free(t);
    throw e;
  }
}

/** out [out, in] (f32) := W + s·B·A, one projection's merged weight (W widened when stored as halves). */
export function mergeProjection(be: Backend, w: Tensor, pair: LoraPair, adapter: LoraAdapter, out: Tensor): void {
  const [nOut, nIn] = out.shape;
  widen(be, w, out);
  be.run('matmul', {
    t: { a: pair.B, b: pair.A, c: out },
    p: { M: nOut, N: nIn, K: adapter.rank, transA: 0, transB: 0, alpha: adapter.scale, beta: 1 },
  });
}

/** Every targeted projection of the fused copy := base W + s·B·A (B[out,r] @ A[r,in]), on the device: the sum is
 *  formed in a scratch matrix (copy, then a matmul with beta = 1) and copied into its rows of the fused tensor. */
export function refreshMerged(
  be: Backend,
  cfg: ModelConfig,
  base: DecoderParams,
  adapter: LoraAdapter,
  merged: MergedWeights,
): void {
  const scratch = new Map<string, Tensor>();
  try {
    base.layers.forEach((layer: LayerParams, l) => {
      const f = merged.fused[l];
      for (const t of adapter.targets) {
        const pair = adapter.layers[l][t]!;
        const { nIn, nOut } = projectionDims(cfg, t);
        const { into, row0 } = slot(cfg, t);
        // o and down are whole tensors of the copy: summed in place when f32, through the scratch when halves
        const direct = (into === 'o' || into === 'down') && f[into].dtype === 'f32';
        let sum: Tensor;
        if (direct) sum = f[into];
        else {
          const key = `${nOut}x${nIn}`;
          sum = scratch.get(key) ?? be.alloc([nOut, nIn], 'f32', `merge.sum.${key}`);
          scratch.set(key, sum);
        }
        mergeProjection(be, layer[t], pair, adapter, sum);
        if (!direct)
          be.run('copyRows', {
            t: { src: sum, dst: f[into] },
            p: { B: 1, T: nOut, W: nIn, Sdst: f[into].shape[0], dstRow0: row0 },
          });
      }
    });
  } finally {
    for (const t of scratch.values()) be.free(t);
  }
}
