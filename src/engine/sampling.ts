// Choosing the next token from a row of logits on the host: greedy, or temperature + top-k + top-p (nucleus)
// sampling driven by the counter-based uniform01(seed, sequence, tokenIndex), so a sequence's tokens depend
// only on its seed, its index and its own logits, never on which other sequences share the batch.
import type { SamplingParams } from './policy.ts';
import { uniform01 } from '../util/rng.ts';

/** log softmax(logits)[token] at temperature 1, in float64. */
export function logSoftmaxAt(logits: Float32Array, token: number): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  return logits[token] - max - Math.log(sum);
}

export function argmax(logits: Float32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

export function validateSampling(params: SamplingParams): void {
  if (!(params.temperature >= 0) || !Number.isFinite(params.temperature)) throw new Error(`sampling: temperature must be >= 0, got ${params.temperature}`);
  if (!(params.topP > 0 && params.topP <= 1)) throw new Error(`sampling: topP must be in (0, 1], got ${params.topP}`);
  if (!Number.isFinite(params.topK)) throw new Error(`sampling: topK must be a finite number, got ${params.topK}`);
}

/**
 * Pick a token. temperature 0 -> argmax. Otherwise p ∝ exp(logits / temperature), restricted to the topK most
 * likely tokens (topK > 0), then to the smallest set of most likely tokens whose mass reaches topP, and sampled
 * with u = uniform01(seed, stream, counter).
 */
export function sampleToken(logits: Float32Array, params: SamplingParams, stream: number, counter: number): number {
  if (params.temperature <= 0) return argmax(logits);
  const V = logits.length;
  const invT = 1 / params.temperature;
  let max = -Infinity;
  for (let i = 0; i < V; i++) if (logits[i] > max) max = logits[i];
  const weights = new Float64Array(V);
  let total = 0;
  for (let i = 0; i < V; i++) {
    const w = Math.exp((logits[i] - max) * invT);
    weights[i] = w;
    total += w;
  }
  const u = uniform01(params.seed, stream, counter);
  const useTopK = params.topK > 0 && params.topK < V;
  if (!useTopK && params.topP >= 1) {
    // plain temperature sampling: inverse CDF in vocabulary order
    let target = u * total;
    for (let i = 0; i < V; i++) {
      target -= weights[i];
      if (target < 0) return i;
    }
    return argmax(logits);
  }
  // most likely first (ties: lower id first), cut to top-k, then to the top-p nucleus. Only a threshold set
  // {w >= tau} is sorted: every token above tau precedes every token below it, so once that set holds the
  // top-k tokens (or, without top-k, the nucleus mass) its sorted order is the head of the full order.
  const k = useTopK ? Math.floor(params.topK) : V;
  let minPositive = Infinity;
  for (let i = 0; i < V; i++) if (weights[i] > 0 && weights[i] < minPositive) minPositive = weights[i];
  let head: number[] = [];
  for (let tau = 1 / 16; ; tau /= 16) {
    head = [];
    let mass = 0;
    for (let i = 0; i < V; i++) {
      if (weights[i] >= tau) {
        head.push(i);
        mass += weights[i];
      }
    }
    const enough = useTopK ? head.length >= k : mass >= params.topP * total;
    if (enough || tau <= minPositive) break;
  }
  const order = head.toSorted((a, b) => weights[b] - weights[a] || a - b);
  let kept = Math.min(k, order.length);
  // mass the nucleus is measured against: the top-k tokens, or every token without top-k
  let keptMass = 0;
  for (let j = 0; j < kept; j++) keptMass += weights[order[j]];
  if (!useTopK) keptMass = Math.max(keptMass, total);
  if (params.topP < 1) {
    let mass = 0;
    for (let j = 0; j < kept; j++) {
      mass += weights[order[j]];
      if (mass >= params.topP * keptMass) {
        kept = j + 1;
        break;
      }
    }
    keptMass = mass;
  }
  let target = u * keptMass;
  for (let j = 0; j < kept; j++) {
    target -= weights[order[j]];
    if (target < 0) return order[j];
  }
  return order[kept - 1];
}
