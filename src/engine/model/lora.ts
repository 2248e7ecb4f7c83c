// LoRA adapters: per layer and per targeted projection a low-rank pair A[r, in], B[out, r] so that
// y = x W^T + (alpha / r) · (x A^T) B^T. The base stays frozen; several named adapters can share one base.
// Names follow PEFT so adapters round-trip with Hugging Face (…q_proj.lora_A.weight).
import type { Backend, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import { Rng } from '../../util/rng.ts';
import { tensorFrom, zeros } from './device-ops.ts';

export const LORA_TARGETS = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const;
export type LoraTarget = (typeof LORA_TARGETS)[number];

/** HF module path of each target inside a layer. */
export const LORA_MODULE: Record<LoraTarget, string> = {
  q: 'self_attn.q_proj',
  k: 'self_attn.k_proj',
  v: 'self_attn.v_proj',
  o: 'self_attn.o_proj',
  gate: 'mlp.gate_proj',
  up: 'mlp.up_proj',
  down: 'mlp.down_proj',
};

/** Accepts 'q' or 'q_proj' (PEFT's target_modules spelling); throws on anything else. */
export function normalizeLoraTargets(targets: readonly string[]): LoraTarget[] {
  const out: LoraTarget[] = [];
  for (const raw of targets) {
    const t = raw.replace(/_proj$/, '') as LoraTarget;
    if (!LORA_TARGETS.includes(t)) throw new Error(`LoRA target "${raw}" is not one of ${LORA_TARGETS.join(', ')}`);
    if (!out.includes(t)) out.push(t);
  }
  if (out.length === 0) throw new Error('LoRA: at least one target projection is required');
  return out;
}

/** (in, out) features of a targeted projection. */
export function projectionDims(config: ModelConfig, target: LoraTarget): { nIn: number; nOut: number } {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = config;
  switch (target) {
    case 'q':
      return { nIn: D, nOut: H * Dh };
    case 'k':
    case 'v':
      return { nIn: D, nOut: Hkv * Dh };
    case 'o':
      return { nIn: H * Dh, nOut: D };
    case 'gate':
    case 'up':
      return { nIn: D, nOut: F };
    case 'down':
      return { nIn: F, nOut: D };
  }
}

export interface LoraPair {
  A: Tensor; // [r, in]
  B: Tensor; // [out, r]
}

export type LoraLayer = Partial<Record<LoraTarget, LoraPair>>;

export interface LoraAdapter {
  name: string;
  rank: number;
  alpha: number;
  /** alpha / rank */
  scale: number;
  targets: LoraTarget[];
  layers: LoraLayer[];
}

export interface LoraOptions {
  name: string;
  rank: number;
  alpha: number;
  targets: readonly string[];
  seed: number;
}

export function buildAdapter(
  config: ModelConfig,
  opts: LoraOptions,
  make: (name: string, shape: number[], kind: 'A' | 'B') => Tensor,
): LoraAdapter {
  if (!Number.isInteger(opts.rank) || opts.rank < 1)
    throw new Error(`LoRA "${opts.name}": rank must be a positive integer, got ${opts.rank}`);
  const targets = normalizeLoraTargets(opts.targets);
  const layers: LoraLayer[] = [];
  for (let l = 0; l < config.numLayers; l++) {
    const layer: LoraLayer = {};
    for (const t of targets) {
      const { nIn, nOut } = projectionDims(config, t);
      const base = loraKey(l, t);
      layer[t] = {
        A: make(`${base}.lora_A.weight`, [opts.rank, nIn], 'A'),
        B: make(`${base}.lora_B.weight`, [nOut, opts.rank], 'B'),
      };
    }
    layers.push(layer);
  }
  return { name: opts.name, rank: opts.rank, alpha: opts.alpha, scale: opts.alpha / opts.rank, targets, layers };
}

/** PEFT key prefix of a targeted module, e.g. base_model.model.model.layers.0.self_attn.q_proj */
export function loraKey(layer: number, target: LoraTarget): string {
  return `base_model.model.model.layers.${layer}.${LORA_MODULE[target]}`;
}

/** A fresh adapter as PEFT initialises it: A ~ U(-1/sqrt(in), 1/sqrt(in)) (kaiming_uniform, a=sqrt(5)), B = 0,
 *  so the adapted model starts equal to the base. */
export function createLoraAdapter(backend: Backend, config: ModelConfig, opts: LoraOptions): LoraAdapter {
  const rng = new Rng(opts.seed);
  return buildAdapter(config, opts, (name, shape, kind) => {
    if (kind === 'B') return zeros(backend, shape, `lora:${opts.name}:${name}`);
    const bound = 1 / Math.sqrt(shape[1]);
    const data = new Float32Array(shape[0] * shape[1]);
    for (let i = 0; i < data.length; i++) data[i] = (2 * rng.next() - 1) * bound;
    return tensorFrom(backend, shape, data, `lora:${opts.name}:${name}`);
  });
}

/** Zero tensors with the adapter's layout (gradients, Adam moments). */
export function zerosLikeAdapter(backend: Backend, config: ModelConfig, like: LoraAdapter, label: string): LoraAdapter {
  const opts = { name: like.name, rank: like.rank, alpha: like.alpha, targets: like.targets, seed: 0 };
  return buildAdapter(config, opts, (name, shape) => zeros(backend, shape, `${label}:${name}`));
}

/** [PEFT key, tensor] for every A and B. */
export function namedLoraParameters(adapter: LoraAdapter): Array<[string, Tensor]> {
  const out: Array<[string, Tensor]> = [];
  adapter.layers.forEach((layer, l) => {
    for (const t of adapter.targets) {
      const pair = layer[t]!;
      out.push([`${loraKey(l, t)}.lora_A.weight`, pair.A]);
      out.push([`${loraKey(l, t)}.lora_B.weight`, pair.B]);
    }
  });
  return out;
}

export function freeAdapter(backend: Backend, adapter: LoraAdapter): void {
  for (const [, t] of namedLoraParameters(adapter)) backend.free(t);
}
