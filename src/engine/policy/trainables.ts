// The trainable adapters of an EnginePolicy (engine-policy.ts): a LoRA adapter over the frozen base or a full
// trainable copy of the decoder, each with its gradients and AdamW; how they are made, where a backward adds
// their gradients, and how they are freed.
import type { Backend } from '../backend.ts';
import type { ModelConfig } from '../model/config.ts';
import type { GradientSinks } from '../model/decoder.ts';
import { freeAdapter, namedLoraParameters, zerosLikeAdapter, type LoraAdapter } from '../model/lora.ts';
import type { MergedWeights } from '../model/lora-merge.ts';
import { cloneParams, freeParams, namedParameters, zerosLikeParams, type DecoderParams } from '../model/params.ts';
import { AdamW, type AdamWOptions, type ParamSlot } from '../optim/adamw.ts';

/** A LoRA adapter over the frozen base, its gradients and optimiser. */
export interface LoraTrainable {
  kind: 'lora';
  name: string;
  lora: LoraAdapter;
  grads: LoraAdapter;
  /** LoRA merged into a copy of the targeted weights, for generation and scoring (null: not allocated) */
  merged: MergedWeights | null;
  /** false after the adapter changed (optimiser step, load) until the copy is refreshed */
  mergedFresh: boolean;
  optimizer: AdamW;
}

/** A full trainable copy of the decoder's weights, its gradients and optimiser. */
export interface FullTrainable {
  kind: 'full';
  name: string;
  params: DecoderParams;
  grads: DecoderParams;
  optimizer: AdamW;
}

export type Trainable = LoraTrainable | FullTrainable;

/** A LoRA adapter's trainable: zero gradients and AdamW over its A and B matrices (all with weight decay). */
export function makeLoraTrainable(
  be: Backend,
  config: ModelConfig,
  optimizer: AdamWOptions,
  name: string,
  lora: LoraAdapter,
): LoraTrainable {
  const loraGrads = zerosLikeAdapter(be, config, lora, `grad:${name}`);
  const grads = new Map(namedLoraParameters(loraGrads));
  const slots = namedLoraParameters(lora).map(([pname, t]): ParamSlot => ({
    name: pname,
    param: t,
    grad: grads.get(pname)!,
    decay: true,
  }));
  return {
    kind: 'lora',
    name,
    lora,
    grads: loraGrads,
    merged: null,
    mergedFresh: false,
    optimizer: new AdamW(be, optimizer, slots),
  };
}

/** A full trainable copy of the base weights: zero gradients and AdamW (weight decay on matrices only). */
export function makeFullTrainable(
  be: Backend,
  config: ModelConfig,
  base: DecoderParams,
  optimizer: AdamWOptions,
  name: string,
): FullTrainable {
  const full = cloneParams(be, config, base, `full:${name}`);
  const fullGrads = zerosLikeParams(be, config, `grad:${name}`);
  const slots: ParamSlot[] = [];
  const grads = new Map(namedParameters(fullGrads));
  for (const [pname, t] of namedParameters(full))
    slots.push({ name: pname, param: t, grad: grads.get(pname)!, decay: t.shape.length >= 2 });
  return { kind: 'full', name, params: full, grads: fullGrads, optimizer: new AdamW(be, optimizer, slots) };
}

/** Frees a LoRA adapter's merged inference copy (made again when next needed). */
export function freeMerged(be: Backend, t: LoraTrainable): void {
  for (const x of t.merged?.owned ?? []) be.free(x);
  t.merged = null;
  t.mergedFresh = false;
}

/** Frees every device tensor of a trainable (weights, gradients, merged copy, optimiser state). */
export function freeTrainable(be: Backend, t: Trainable): void {
  if (t.kind === 'lora') {
    freeMerged(be, t);
    freeAdapter(be, t.lora);
    freeAdapter(be, t.grads);
  } else {
    freeParams(be, t.params);
    freeParams(be, t.grads);
  }
  t.optimizer.free();
}

/** Where a backward adds an adapter's gradients. */
export function sinksOf(t: Trainable): GradientSinks {
  return t.kind === 'full' ? { full: t.grads, lora: null } : { full: null, lora: t.grads };
}
