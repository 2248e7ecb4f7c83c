// The `sample` kernel on the CPU: the exact twin, operation by operation in f32 (Math.fround), of the WGSL
// sampler (kernels/wgsl/sample.ts), so that every backend draws the same token from the same logits.
// The algorithm is written for one GPU workgroup of SAMPLE_BLOCKS threads per row: the vocabulary is cut into
// SAMPLE_BLOCKS contiguous blocks of C = ceil(V / SAMPLE_BLOCKS) ids; a block's sums run in id order, block sums are
// added in block order. Per row:
//   1. statistics at temperature 1: m = max logit (argmax: lowest id among equal maxima), S = Σ exp(x - m),
//      T = Σ exp(x - m)·(x - m); logp(token) = (x_token - m) - log S; entropy = log S - T / S.
//   2. temperature 0: the argmax. Otherwise w_i = exp((x_i - m) · (1/temperature)), and the draw is restricted to
//      the tokens whose logit is at least a threshold, found by bisection over the 32-bit order-preserving key of
//      the f32 logit: top-k (0 < k < V) keeps every token whose logit is >= the k-th largest (ties at the edge all
//      kept, as transformers' TopKLogitsWarper); top-p (< 1) then keeps the largest threshold whose kept mass is
//      >= topP × the top-k mass. Integer counts are exact on every device; masses are f32 sums in the block order.
//   3. the draw: target = u · M (M the kept mass, u = uniform01(seed, stream, counter)); the first block whose
//      running block-sum prefix exceeds target is walked in id order from target − prefix; the token where the
//      running sum first exceeds it is drawn (the block's last kept token if rounding leaves none; the last kept
//      token of the row if no prefix exceeds target).
// Weights are expF32 (exp-f32.ts: fdlibm's exp, as Math.exp, rounded to f32, without the call into the engine).
// The GPU's exp and log are not correctly rounded (a few ulp, WGSL's accuracy rules), so its weights may differ in
// the last bits from these: the two draws then differ only when target falls within that rounding of a
// boundary of the cumulative sums (a near-tie; sampleMargin measures it), or when a top-p mass lies within rounding
// of topP × mass. Counts, top-k and the greedy argmax are bit-exact.
// An optional mask (constrained decoding) removes tokens before step 1: a row's mask is ceil(V / 32) 32-bit words,
// bit (i & 31) of word (i >> 5) set = token i allowed. Every step above then runs over the allowed tokens only, so
// greedy is the allowed argmax and logp / entropy are those of the masked, renormalised distribution
// softmax(logits restricted to the allowed set). At least one token of a masked row must be allowed.
import { uniform01 } from '../../../util/rng.ts';
import { expF32 } from './exp-f32.ts';

/** Blocks (GPU threads) the vocabulary is cut into. */
export const SAMPLE_BLOCKS = 256;

export interface SampleParams {
  /** 0 (or less): greedy */
  temperature: number;
  /** keep the k most likely tokens; 0 or less (or >= V) disables */
  topK: number;
  /** nucleus mass in (0, 1]; 1 disables */
  topP: number;
  seed: number;
}

export interface SampledToken {
  token: number;
  /** log softmax(logits)[token] at temperature 1 (f32) */
  logp: number;
  /** entropy of softmax(logits) at temperature 1 (f32) */
  entropy: number;
  /** number of tokens the draw was restricted to (1 for greedy) */
  kept: number;
}

const f = Math.fround;
/** Start of the max search, as in WGSL (which has no -inf literal): the lowest finite f32. */
const LOWEST = -3.4028234663852886e38;
const bits = new Uint32Array(1);
const asF32 = new Float32Array(bits.buffer);

/** The order-preserving 32-bit key of an f32: key(a) < key(b) iff a < b (with -0 just below +0). */
export function orderedKey(x: number): number {
  asF32[0] = x;
  const b = bits[0];
  return (b & 0x80000000) !== 0 ? ~b >>> 0 : (b | 0x80000000) >>> 0;
}

/** What the kernel derives from the catalog's parameters on the host (the same on every backend). */
export function samplerConstants(
  p: SampleParams,
  V: number,
): { greedy: boolean; invT: number; topK: number; topP: number } {
  const greedy = !(p.temperature > 0);
  return {
    greedy,
    invT: greedy ? 0 : f(1 / p.temperature),
    topK: p.topK > 0 && p.topK < V ? Math.floor(p.topK) : 0,
    topP: p.topP < 1 ? f(p.topP) : 1,
  };
}

/** 32-bit words of one row's token mask: ceil(V / 32). */
export function maskWords(V: number): number {
  return Math.ceil(V / 32);
}

/** One row's token mask: words[off, off + maskWords(V)), bit (i & 31) of word (i >> 5) allows token i. */
export interface RowMask {
  words: Uint32Array | Int32Array;
  off: number;
}

/** Is token i allowed by the row mask (every token when there is none)? */
export function maskAllows(mask: RowMask | null, i: number): boolean {
  return mask === null || ((mask.words[mask.off + (i >>> 5)] >>> (i & 31)) & 1) === 1;
}

/** Per-token scratch of sampleRow, grown to the largest V seen (rows are drawn one at a time). */
let okScratch = new Uint8Array(0);
let wScratch = new Float32Array(0);
let keyScratch = new Uint32Array(0);
const sumsScratch = new Float64Array(SAMPLE_BLOCKS);
function rowScratch(V: number): void {
  if (okScratch.length >= V) return;
  okScratch = new Uint8Array(V);
  wScratch = new Float32Array(V);
  keyScratch = new Uint32Array(V);
}

/** Whether a row is drawn by sampleWhole: no mask, top-k or top-p, greedy or at temperature 1. */
function drawsWhole(k: ReturnType<typeof samplerConstants>, masked: boolean): boolean {
  return !masked && k.topK === 0 && k.topP === 1 && (k.greedy || k.invT === 1);
}

/** Draw one token from logits[off, off + V) with the uniform number u in [0, 1), among the tokens `mask` allows. */
export function sampleRow(
  logits: Float32Array,
  off: number,
  V: number,
  p: SampleParams,
  u: number,
  mask: RowMask | null = null,
): SampledToken {
  const k = samplerConstants(p, V);
  const C = Math.ceil(V / SAMPLE_BLOCKS);
  rowScratch(V);
  if (drawsWhole(k, mask !== null)) return sampleWhole(logits, off, V, k.greedy, u);
  const ok = okScratch,
    w = wScratch,
    key = keyScratch;
  let allowedCount = 0;
  if (mask === null) {
    ok.fill(1, 0, V);
    allowedCount = V;
  } else {
    for (let i = 0; i < V; i++) {
      const a = maskAllows(mask, i) ? 1 : 0;
      ok[i] = a;
      allowedCount += a;
    }
  }
  if (allowedCount === 0) throw new Error('sample: the token mask allows no token');
  // 1. statistics at temperature 1
  let m = LOWEST;
  let arg = 0;
  for (let j = 0; j < SAMPLE_BLOCKS; j++) {
    let bm = LOWEST;
    let ba = 0;
    const end = Math.min(j * C + C, V);
    for (let i = Math.min(j * C, V); i < end; i++) {
      if (ok[i] && logits[off + i] > bm) {
        bm = logits[off + i];
        ba = i;
      }
    }
    if (bm > m) {
      m = bm;
      arg = ba;
    }
  }
  // at temperature 1 the draw's weights are these exponentials (exp(f(d · 1)) = exp(d), stored as f32), and each
  // block's `mass` is its kept mass when nothing is filtered
  const weightsHere = !k.greedy && k.invT === 1;
  const sums = sumsScratch;
  let S = 0;
  let T = 0;
  for (let j = 0; j < SAMPLE_BLOCKS; j++) {
    let s = 0;
    let t = 0;
    // the block's mass as step 3 adds it: every weight, a NaN one (from a NaN or infinite logit) included
    let mass = 0;
    const end = Math.min(j * C + C, V);
    for (let i = Math.min(j * C, V); i < end; i++) {
      if (!ok[i]) continue;
      const d = f(logits[off + i] - m);
      const e = expF32(d);
      if (weightsHere) w[i] = e;
      mass = f(mass + e);
      if (e > 0) {
        s = f(s + e);
        t = f(t + f(e * d));
      }
    }
    sums[j] = mass;
    S = f(S + s);
    T = f(T + t);
  }
  const logS = f(Math.log(S));
  const entropy = f(logS - f(T / S));
  const result = (token: number, kept: number): SampledToken => ({
    token,
    logp: f(f(logits[off + token] - m) - logS),
    entropy,
    kept,
  });
  if (k.greedy) return result(arg, 1);
  const filtered = k.topK > 0 || k.topP < 1;
  if (mask === null && !filtered && weightsHere) {
    let M = 0;
    for (let j = 0; j < SAMPLE_BLOCKS; j++) M = f(M + sums[j]);
    return result(draw(w, sums, M, V, C, u), V);
  }

  // 2. the kept set {key >= thr}; without top-k and top-p the threshold stays 0 and every allowed token is kept
  if (!weightsHere) for (let i = 0; i < V; i++) w[i] = expF32(f(f(logits[off + i] - m) * k.invT));
  if (filtered) for (let i = 0; i < V; i++) key[i] = orderedKey(logits[off + i]);
  else key.fill(0, 0, V);
  const blockMass = (j: number, thr: number): number => {
    let s = 0;
    const end = Math.min(j * C + C, V);
    for (let i = Math.min(j * C, V); i < end; i++) if (ok[i] && key[i] >= thr) s = f(s + w[i]);
    return s;
  };
  const massAbove = (thr: number): number => {
    let s = 0;
    for (let j = 0; j < SAMPLE_BLOCKS; j++) s = f(s + blockMass(j, thr));
    return s;
  };
  const countAbove = (thr: number): number => {
    let c = 0;
    for (let i = 0; i < V; i++) if (ok[i] && key[i] >= thr) c++;
    return c;
  };
  let thr = 0;
  if (k.topK > 0) {
    let t = 0;
    for (let bit = 31; bit >= 0; bit--) {
      const cand = (t | (1 << bit)) >>> 0;
      if (countAbove(cand) >= k.topK) t = cand;
    }
    thr = t;
  }
  if (k.topP < 1) {
    const target = f(k.topP * massAbove(thr));
    let t = 0;
    for (let bit = 31; bit >= 0; bit--) {
      const cand = (t | (1 << bit)) >>> 0;
      if (massAbove(Math.max(cand, thr)) >= target) t = cand;
    }
    thr = Math.max(t, thr);
  }
  // 3. the draw
  const kept = filtered ? countAbove(thr) : allowedCount;
  let M = 0;
  for (let j = 0; j < SAMPLE_BLOCKS; j++) {
    sums[j] = blockMass(j, thr);
    M = f(M + sums[j]);
  }
  const target = f(u * M);
  let c = 0;
  for (let j = 0; j < SAMPLE_BLOCKS; j++) {
    const next = f(c + sums[j]);
    if (next > target) {
      const r = f(target - c);
      let d = 0;
      let last = -1;
      const end = Math.min(j * C + C, V);
      for (let i = Math.min(j * C, V); i < end; i++) {
        if (!ok[i] || key[i] < thr) continue;
        last = i;
        d = f(d + w[i]);
        if (d > r) return result(i, kept);
      }
      return result(last, kept);
    }
    c = next;
  }
  let last = 0;
  for (let i = 0; i < V; i++) if (ok[i] && key[i] >= thr) last = i;
  return result(last, kept);
}

/** sampleRow without a mask, top-k or top-p, greedy or at temperature 1 (rollouts and evaluations): the same f32
 *  operations in the same order, without the kept-set bookkeeping (the sampler's most frequent case, one call per
 *  drawn token of every sequence). */
function sampleWhole(logits: Float32Array, off: number, V: number, greedy: boolean, u: number): SampledToken {
  const C = Math.ceil(V / SAMPLE_BLOCKS);
  let m = LOWEST;
  let arg = 0;
  for (let i = 0; i < V; i++) {
    const x = logits[off + i];
    if (x > m) {
      m = x;
      arg = i;
    }
  }
  const w = wScratch,
    sums = sumsScratch;
  // the weights first (independent of each other), then the sums in id order within a block, blocks in order
  for (let i = 0; i < V; i++) w[i] = expF32(f(logits[off + i] - m));
  let S = 0;
  let T = 0;
  let M = 0;
  if (C === 1) {
    // a block per token: its mass and sums are the token's own weight (f(0 + e) = e), blocks past V are empty
    for (let i = 0; i < V; i++) {
      const e = w[i];
      sums[i] = e;
      M = f(M + e);
      if (e > 0) {
        S = f(S + e);
        T = f(T + f(e * f(logits[off + i] - m)));
      }
    }
    sums.fill(0, V, SAMPLE_BLOCKS);
  } else {
    for (let j = 0, i = 0; j < SAMPLE_BLOCKS; j++) {
      let s = 0;
      let t = 0;
      let mass = 0;
      for (const end = Math.min(i + C, V); i < end; i++) {
        const e = w[i];
        mass = f(mass + e);
        if (e > 0) {
          s = f(s + e);
          t = f(t + f(e * f(logits[off + i] - m)));
        }
      }
      sums[j] = mass;
      M = f(M + mass);
      S = f(S + s);
      T = f(T + t);
    }
  }
  const logS = f(Math.log(S));
  const entropy = f(logS - f(T / S));
  // (no closure here: this runs once per drawn token)
  const token = greedy ? arg : draw(w, sums, M, V, C, u);
  return { token, logp: f(f(logits[off + token] - m) - logS), entropy, kept: greedy ? 1 : V };
}

/** Step 3 when every token is kept (no mask, top-k or top-p) at temperature 1: the same walk as sampleRow's over
 *  the weights `w` and block sums `sums` (kept mass M) of the statistics pass, without the kept-set tests; returns
 *  the drawn token. */
function draw(w: Float32Array, sums: Float64Array, M: number, V: number, C: number, u: number): number {
  const target = f(u * M);
  let c = 0;
  for (let j = 0; j < SAMPLE_BLOCKS; j++) {
    const next = f(c + sums[j]);
    if (next > target) {
      const r = f(target - c);
      let d = 0;
      let last = -1;
      const end = Math.min(j * C + C, V);
      for (let i = Math.min(j * C, V); i < end; i++) {
        last = i;
        d = f(d + w[i]);
        if (d > r) return i;
      }
      return last;
    }
    c = next;
  }
  return V - 1;
}

/** The catalog kernel: out[r*4 ..] = token, f32 bits of logp and entropy, kept count, for each of R rows drawn from
 *  logits row rowOf[r] with u = uniform01(seed, stream[r], counter), among the tokens row r of `mask` allows
 *  (mask [R, maskWords(V)]; null: every token). */
export function sample(
  logits: Float32Array,
  rowOf: Int32Array,
  stream: Int32Array,
  out: Int32Array,
  R: number,
  L: number,
  V: number,
  p: SampleParams & { counter: number },
  mask: Int32Array | Uint32Array | null = null,
): void {
  const outF = new Float32Array(out.buffer, out.byteOffset, out.length);
  // the path every unfiltered row takes, chosen once for the call
  const k = samplerConstants(p, V);
  const whole = drawsWhole(k, mask !== null);
  if (whole) rowScratch(V);
  for (let r = 0; r < R; r++) {
    const row = rowOf[r];
    if (!(row >= 0 && row < L)) throw new Error(`sample: rowOf[${r}] = ${row} is outside the ${L} logits rows`);
    const u = uniform01(p.seed, stream[r], p.counter);
    const s = whole
      ? sampleWhole(logits, row * V, V, k.greedy, u)
      : sampleRow(logits, row * V, V, p, u, mask ? { words: mask, off: r * maskWords(V) } : null);
    out[r * 4] = s.token;
    outF[r * 4 + 1] = s.logp;
    outF[r * 4 + 2] = s.entropy;
    out[r * 4 + 3] = s.kept;
  }
}

/** How far target = u·M lies from the nearest boundary of the cumulative kept mass, relative to M (tests: a draw
 *  that differs between the CPU and GPU must have a margin within rounding). Plain float64, kept set as sampleRow's. */
export function sampleMargin(
  logits: Float32Array,
  off: number,
  V: number,
  p: SampleParams,
  u: number,
  mask: RowMask | null = null,
): number {
  const k = samplerConstants(p, V);
  if (k.greedy) return Infinity;
  let m = -Infinity;
  for (let i = 0; i < V; i++) if (maskAllows(mask, i)) m = Math.max(m, logits[off + i]);
  const chosen = sampleRow(logits, off, V, p, u, mask);
  // the kept set is every allowed token at least as likely as the least likely kept token: recompute its threshold
  const allowed = Array.from({ length: V }, (_, i) => i).filter((i) => maskAllows(mask, i));
  const keys = allowed.map((i) => orderedKey(logits[off + i])).toSorted((a, b) => b - a);
  const thr = keys[chosen.kept - 1];
  let M = 0;
  const w: number[] = [];
  for (let i = 0; i < V; i++) {
    const x = maskAllows(mask, i) && orderedKey(logits[off + i]) >= thr ? Math.exp((logits[off + i] - m) * k.invT) : 0;
    w.push(x);
    M += x;
  }
  const target = u * M;
  let c = 0;
  let best = Infinity;
  for (let i = 0; i < V; i++) {
    if (w[i] === 0) continue;
    c += w[i];
    best = Math.min(best, Math.abs(c - target));
  }
  return best / M;
}
