// Choosing the next token from a row of logits on the host: greedy, or temperature + top-k + top-p (nucleus)
// sampling driven by the counter-based uniform01(seed, sequence, tokenIndex), so a sequence's tokens depend
// only on its seed, its index and its own logits, never on which other sequences share the batch. The engine
// draws on the device (the `sample` kernel); this host path runs that kernel's CPU twin.
import type { SamplingParams } from './policy/policy.ts';
import { sampleRow, type RowMask } from './kernels/cpu/sample.ts';
import { uniform01 } from '../util/rng.ts';

/** log softmax(logits)[token] at temperature 1, in float64; with `allowed` (a token mask) over the allowed ids only. */
export function logSoftmaxAt(logits: Float32Array, token: number, allowed: Uint32Array | null = null): number {
  const ok = (i: number) => allowed === null || ((allowed[i >>> 5] >>> (i & 31)) & 1) === 1;
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (ok(i) && logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) if (ok(i)) sum += Math.exp(logits[i] - max);
  return logits[token] - max - Math.log(sum);
}

export function argmax(logits: Float32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

export function validateSampling(params: SamplingParams): void {
  if (!(params.temperature >= 0) || !Number.isFinite(params.temperature))
    throw new Error(`sampling: temperature must be >= 0, got ${params.temperature}`);
  if (!(params.topP > 0 && params.topP <= 1)) throw new Error(`sampling: topP must be in (0, 1], got ${params.topP}`);
  if (!Number.isFinite(params.topK)) throw new Error(`sampling: topK must be a finite number, got ${params.topK}`);
}

/**
 * Pick a token on the host, with the same algorithm as the device's `sample` kernel (its CPU twin,
 * kernels/cpu/sample.ts), so a host-sampling policy (the frozen ONNX agent) draws what the engine draws.
 * temperature 0 -> argmax. Otherwise p ∝ exp(logits / temperature), restricted to the tokens at least as likely as
 * the topK-th (topK > 0; ties at the edge kept), then to the highest logit threshold whose mass reaches topP, and
 * drawn in id order with u = uniform01(seed, stream, counter).
 */
export function sampleToken(
  logits: Float32Array,
  params: SamplingParams,
  stream: number,
  counter: number,
  allowed: Uint32Array | null = null,
): number {
  const mask: RowMask | null = allowed ? { words: allowed, off: 0 } : null;
  if (params.temperature <= 0 && mask === null) return argmax(logits);
  return sampleRow(logits, 0, logits.length, params, uniform01(params.seed, stream, counter), mask).token;
}
