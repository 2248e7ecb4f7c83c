// FLOPs of the work a GRPO step hands the engine, counted from the model's shape and the tokens each call
// actually processes (bench/grpo-step.ts wraps the policy and adds these up per call). Multiply-adds count 2.
//   prefill of P prompt tokens: P decoder positions (position t attends to t + 1 keys), the LM head once;
//   each decode step at position t: one decoder position attending to t + 1 keys, the LM head once;
//   a training row of T tokens scored at n positions: the forward (T positions, the LM head at the n scored
//   positions) and its backward: the input gradients of every frozen matmul and of the LM head (the same FLOPs
//   as their forward), attention's backward (twice its forward) and LoRA's input and weight gradients (twice
//   its forward). Elementwise work (norms, SwiGLU, RoPE, softmax) is left out: it is O(D) per token.
import type { ModelConfig } from '../src/engine/model/config.ts';

/** The per-position pieces of one forward, in FLOPs. */
export interface PositionFlops {
  /** every layer's frozen projections and MLP */
  matmul: number;
  /** every layer's LoRA adapters (rank r on the targeted projections) */
  lora: number;
  /** every layer's attention, per key attended */
  attentionPerKey: number;
  /** the LM head, per position it is computed at */
  head: number;
}

/** Linear layers of one decoder layer as [in, out], by the names LoRA targets. */
function layerLinears(cfg: ModelConfig): Record<string, [number, number]> {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh } = cfg;
  return {
    q_proj: [D, H * Dh],
    k_proj: [D, Hkv * Dh],
    v_proj: [D, Hkv * Dh],
    o_proj: [H * Dh, D],
    gate_proj: [D, F],
    up_proj: [D, F],
    down_proj: [F, D],
  };
}

export function positionFlops(cfg: ModelConfig, loraRank: number, loraTargets: readonly string[]): PositionFlops {
  const L = cfg.numLayers;
  let matmul = 0,
    lora = 0;
  for (const [name, [i, o]] of Object.entries(layerLinears(cfg))) {
    matmul += 2 * i * o;
    if (loraTargets.includes(name)) lora += 2 * loraRank * (i + o);
  }
  return {
    matmul: L * matmul,
    lora: L * lora,
    attentionPerKey: L * 4 * cfg.numHeads * cfg.headDim, // q·k and p·v
    head: 2 * cfg.hiddenSize * cfg.vocabSize,
  };
}

/** Forward FLOPs of positions [from, to) of one sequence (position t attends to t + 1 keys), without the head. */
function positionsFlops(f: PositionFlops, from: number, to: number): number {
  const n = to - from;
  const keys = (to * (to + 1) - from * (from + 1)) / 2; // Σ (t + 1) over t in [from, to)
  return n * (f.matmul + f.lora) + keys * f.attentionPerKey;
}

/** One generation: a prefill of `prompt` tokens, then `steps` decode steps (each draws one token). */
export function generationFlops(f: PositionFlops, prompt: number, steps: number): number {
  if (steps <= 0) return 0;
  return positionsFlops(f, 0, prompt) + f.head + positionsFlops(f, prompt, prompt + steps - 1) + (steps - 1) * f.head;
}

/** One training row (forward and backward) of `tokens` tokens scored at `scored` positions. */
export function trainingRowFlops(f: PositionFlops, tokens: number, scored: number): number {
  const keys = (tokens * (tokens + 1)) / 2;
  const forward = tokens * (f.matmul + f.lora) + keys * f.attentionPerKey + scored * f.head;
  const backward = tokens * (f.matmul + 2 * f.lora) + 2 * keys * f.attentionPerKey + scored * f.head;
  return forward + backward;
}

/** One scoring row (forward only). */
export function scoringRowFlops(f: PositionFlops, tokens: number, scored: number): number {
  return positionsFlops(f, 0, tokens) + scored * f.head;
}
