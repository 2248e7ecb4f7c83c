// The kernel catalog: every compute kernel the engine uses, by name, with its tensors and scalar parameters.
// Each backend (cpu = the readable reference, webgpu = WGSL, wasm = SIMD) implements every entry with the same
// semantics; tests/kernels compare them. Shapes are row-major; all float tensors are f32 unless a weight is
// stored f16 on WebGPU (then the kernel reads f16 and accumulates in f32).
// Letters: M,N,K matmul dims; R rows (= B*T tokens); D hidden; F MLP width; H heads; Hkv kv heads; Dh head dim;
// V vocab; B batch; T query length; S key length (cache capacity); U unique token ids.
import type { Tensor } from '../tensor.ts';

export interface KernelCatalog {
  /** C[M,N] = alpha * op(A) @ op(B) + beta * C (+ bias[N] broadcast over rows when given).
   *  op(A) = A[M,K] or, with transA, A stored [K,M]. op(B) = B[K,N] or, with transB, B stored [N,K]
   *  (transB=1 is the nn.Linear layout: y = x W^T with W[N=out, K=in]). beta=0 ignores C's old contents (even NaN).
   *  The bias is added unscaled (not multiplied by alpha). C must not alias A or B. */
  matmul: {
    t: { a: Tensor; b: Tensor; c: Tensor; bias?: Tensor };
    p: { M: number; N: number; K: number; transA: 0 | 1; transB: 0 | 1; alpha: number; beta: number };
  };
  /** out[N] = beta * out + Σ_m x[m, n]   (bias gradients); beta=0 ignores out's old contents */
  sumRows: { t: { x: Tensor; out: Tensor }; p: { M: number; N: number; beta: number } };
  /** y[R,D] = x / sqrt(mean(x²) + eps) * w ;  rstd[R] = 1 / sqrt(mean(x²) + eps) */
  rmsnorm: { t: { x: Tensor; w: Tensor; y: Tensor; rstd: Tensor }; p: { R: number; D: number; eps: number } };
  /** dx[R,D] (+)= ∂/∂x ; dw[D] += Σ_r dy * x * rstd  (dw accumulated; dx overwritten unless accumulate=1).
   *  With g = dy * w: dx = rstd * g - rstd³ / D * x * Σ_d (g x). rstd is the forward's output. */
  rmsnormBackward: {
    t: { x: Tensor; w: Tensor; rstd: Tensor; dy: Tensor; dx: Tensor; dw?: Tensor };
    p: { R: number; D: number; accumulate: 0 | 1 };
  };
  /** In place on x[R, nHeads, Dh]: HF rotate_half RoPE at integer positions pos[R] (i32).
   *  inverse=1 rotates by -angle (the backward pass). For i < Dh/2: angle = pos * theta^(-2i/Dh),
   *  x[i] <- x[i] cos - x[i+Dh/2] sin, x[i+Dh/2] <- x[i+Dh/2] cos + x[i] sin (applied to every head).
   *  Optional invFreq[Dh/2] (f32): when given, angle = pos * invFreq[i] and theta is ignored (RoPE scaling such as
   *  Llama 3's, see io/hf-config.ts ropeInverseFrequencies). */
  rope: {
    t: { x: Tensor; pos: Tensor; invFreq?: Tensor };
    p: { R: number; nHeads: number; Dh: number; theta: number; inverse: 0 | 1 };
  };
  /** Causal GQA attention over a cache. q[B,T,H,Dh]; k,v[B,S,Hkv,Dh] hold S_used = past + T valid rows per
   *  sequence (rows [0, past+T)); query i of sequence b sits at cache row past+i and sees key rows j with
   *  keyStart[b] <= j <= past+i (keyStart masks left padding). o[B,T,H,Dh]; lse[B,H,T] = log Σ exp(scores),
   *  kept for the backward. scale = 1/sqrt(Dh). Query head h reads kv head floor(h / (H/Hkv)) (HF repeat_kv).
   *  A query that sees no key (keyStart[b] > past+i: a left-padding position) gets o = 0 and lse = 0.
   *  Requires past + T <= S. k and v may both be f16 (a KV cache stored in halves, model/kv-cache.ts; Dh even):
   *  read widened to f32, every sum in f32, so the result is the f32 kernel's on the rounded values (the CPU
   *  backend keeps such a cache as f32 arrays holding the rounded values, its writers round: the twin). */
  attention: {
    t: { q: Tensor; k: Tensor; v: Tensor; keyStart: Tensor; o: Tensor; lse: Tensor };
    p: { B: number; T: number; S: number; past: number; H: number; Hkv: number; Dh: number };
  };
  /** Backward of `attention`: dq[B,T,H,Dh]; dk, dv[B,S,Hkv,Dh] (all overwritten; S >= past + T). Query i of
   *  sequence b sits at key row past+i and saw key rows keyStart[b]..past+i, as in `attention`: past = 0, S = T for
   *  training sequences; past > 0 for a sequence's own tokens behind a context whose keys sit at rows [0, past)
   *  (model/prefix-train.ts): their dk, dv rows are the context's gradient from these queries.
   *  Flash-attention style: p = exp(scale q·k - lse) recomputed from the saved lse, Δ = dout·o,
   *  dv += p dout, ds = p (dout·v - Δ), dq = scale Σ ds k, dk += scale ds q. Queries with no visible key add
   *  nothing (their dq = 0); key rows no query sees (at or past past+T, before keyStart) get 0. */
  attentionBackward: {
    t: {
      q: Tensor;
      k: Tensor;
      v: Tensor;
      keyStart: Tensor;
      o: Tensor;
      lse: Tensor;
      dout: Tensor;
      dq: Tensor;
      dk: Tensor;
      dv: Tensor;
    };
    p: { B: number; T: number; S: number; past: number; H: number; Hkv: number; Dh: number };
  };
  /** h[R,F] = silu(g) * u */
  swiglu: { t: { g: Tensor; u: Tensor; h: Tensor }; p: { R: number; F: number } };
  /** dg, du [R,F] from dh (overwritten) */
  swigluBackward: { t: { g: Tensor; u: Tensor; dh: Tensor; dg: Tensor; du: Tensor }; p: { R: number; F: number } };
  /** The attention input of a layer whose q, k, v weights are concatenated (inference copy, model/lora-merge.ts):
   *  qkv[B,T,(H+2Hkv)·Dh] holds each row's q, k, v projections side by side. q[B,T,H,Dh] := rope(q part);
   *  k[b, dstRow0+t] := rope(k part) and v[b, dstRow0+t] := v part in k, v [B,Sdst,Hkv,Dh] (a KV cache, or the
   *  workspace's own k, v with Sdst = T, dstRow0 = 0). RoPE as `rope` (inverse 0) at pos[B·T], with invFreq as
   *  there. The same arithmetic as splitting, `rope` twice and `copyRows` twice; requires dstRow0 + T <= Sdst.
   *  k and v may both be f16 (a KV cache in halves): each value is stored rounded to the nearest half, as copyRows
   *  stores into an f16 destination. */
  qkvRope: {
    t: { qkv: Tensor; pos: Tensor; invFreq?: Tensor; q: Tensor; k: Tensor; v: Tensor };
    p: { B: number; T: number; H: number; Hkv: number; Dh: number; Sdst: number; dstRow0: number; theta: number };
  };
  /** h[R,F] = silu(gu[r, f]) * gu[r, F + f]: `swiglu` over gate and up projections stored side by side
   *  (gu[R, 2F], one matmul against the concatenated [gate; up] weights). */
  swigluPacked: { t: { gu: Tensor; h: Tensor }; p: { R: number; F: number } };
  /** out[R,D] = table[ids[r], :]  (ids i32; the CPU backend throws on an id outside [0, V)). out may be f16 when the
   *  table is f16 and D even (an f16 KV cache gathered to its live rows): the halves are copied bit for bit. */
  embedding: { t: { ids: Tensor; table: Tensor; out: Tensor }; p: { R: number; D: number } };
  /** dtable[uniqueIds[u], :] += Σ_{r in rows of u} dout[r, :], rows of u = rowList[rowStart[u] .. rowStart[u+1])
   *  (the host groups rows by token id, so no float atomics are needed). */
  embeddingBackward: {
    t: { dout: Tensor; uniqueIds: Tensor; rowStart: Tensor; rowList: Tensor; dtable: Tensor };
    p: { U: number; D: number };
  };
  /** For each row r: logits = h[r] @ W^T (W[V,D], the LM head), computed in vocab chunks with an online
   *  log-sum-exp, never materialising [R,V]. logp[r] = logits[target[r]] - lse[r]; entropy[r] = H(softmax).
   *  Rows with target < 0 produce logp = 0 (padding); their entropy and lse are still computed.
   *  lse[R] = log Σ_v exp(logits) is saved for the backward. */
  logprob: {
    t: { h: Tensor; w: Tensor; target: Tensor; logp: Tensor; entropy: Tensor; lse: Tensor };
    p: { R: number; D: number; V: number };
  };
  /** Backward of Σ_r coef[r]·logp[r] + entCoef[r]·entropy[r]:
   *  dlogits[r,v] = coef[r]·(onehot - p_v) + entCoef[r]·(-p_v (log p_v + H_r)), chunk by chunk;
   *  dh[R,D] = dlogits @ W (overwritten), dw[V,D] += dlogits^T @ h when dw is given (full fine-tuning / tied).
   *  p_v = exp(logits_v - lse[r]) uses the forward's saved lse and entropy (H_r). Rows with target < 0 have no
   *  onehot/coef term (their logp is the constant 0) but keep the entropy term. */
  logprobBackward: {
    t: {
      h: Tensor;
      w: Tensor;
      target: Tensor;
      lse: Tensor;
      entropy: Tensor;
      coef: Tensor;
      entCoef: Tensor;
      dh: Tensor;
      dw?: Tensor;
    };
    p: { R: number; D: number; V: number };
  };
  /** logits[R,V] = h @ W^T for the rows to sample from (R small: one per sequence). */
  lmHead: { t: { h: Tensor; w: Tensor; logits: Tensor }; p: { R: number; D: number; V: number } };
  /** The next token of each of R rows, drawn from logits row rowOf[r] of logits[L,V] (sampling on the device, so
   *  only out is read back): temperature <= 0 is argmax (lowest id among equal maxima); otherwise
   *  p ∝ exp(logits / temperature) restricted to top-k then top-p, drawn with u = uniform01(seed, stream[r],
   *  counter). out[R,4] i32: token id, the f32 bits of log softmax(logits)[token] and of the entropy of
   *  softmax(logits) (both at temperature 1), and how many tokens the draw was restricted to. The exact algorithm
   *  (block sums, ties, bisection thresholds) is the CPU twin's: kernels/cpu/sample.ts.
   *  Optional mask[R, ceil(V/32)] (i32 words, constrained decoding): bit (i & 31) of word (i >> 5) of row r allows
   *  token i; the others get probability 0 before anything else (argmax, statistics, top-k, top-p, draw), so logp
   *  and entropy are those of the masked, renormalised distribution. A masked row must allow at least one token. */
  sample: {
    t: { logits: Tensor; rowOf: Tensor; stream: Tensor; out: Tensor; mask?: Tensor };
    p: {
      R: number;
      L: number;
      V: number;
      temperature: number;
      topK: number;
      topP: number;
      seed: number;
      counter: number;
    };
  };
  /** x[0..n) := 0 (f32, or f16 for a KV cache in halves): zeroing gradients and caches. WebGPU records a
   *  clearBuffer (no dispatch, nothing uploaded from the host). */
  zero: { t: { x: Tensor }; p: { n: number } };
  /** y[n] = a*x[n] + b*y[n]; b=0 overwrites y (old contents ignored, even NaN) */
  axpby: { t: { x: Tensor; y: Tensor }; p: { n: number; a: number; b: number } };
  /** dst[dstB0 + b, dstRow0 + t, :] = src[b, t, :] for t < T; src[B,T,W], dst[dstB0+B,Sdst,W] (KV-cache writes;
   *  dstB0, default 0, is the first destination sequence: a prefill chunk writes its prompts' rows of a larger
   *  cache); requires dstRow0 + T <= Sdst; other rows of dst are untouched. An f16 dst (the merged inference copy
   *  over an f16 base) stores each value rounded to the nearest half; W must then be even. */
  copyRows: {
    t: { src: Tensor; dst: Tensor };
    p: { B: number; T: number; W: number; Sdst: number; dstRow0: number; dstB0?: number };
  };
  /** out[0] (+)= Σ x² (for the global gradient norm); accumulate=1 adds to out[0] */
  sumSquares: { t: { x: Tensor; out: Tensor }; p: { n: number; accumulate: 0 | 1 } };
  /** AdamW with decoupled weight decay and bias correction, on flat tensors of n elements.
   *  g is first multiplied by gradScale (global-norm clipping). step is 1-based. Same update as torch AdamW:
   *  m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g²;  p -= lr * (m/(1-b1^step) / (sqrt(v/(1-b2^step)) + eps) + wd * p). */
  adamw: {
    t: { p: Tensor; g: Tensor; m: Tensor; v: Tensor };
    p: {
      n: number;
      lr: number;
      beta1: number;
      beta2: number;
      eps: number;
      weightDecay: number;
      step: number;
      gradScale: number;
    };
  };
  /** Many tensors and one flat tensor: unpack=0 packs flat[offset_i + j] := parts[i][j], unpack=1 the reverse,
   *  with offset_i = Σ_{k<i} parts[k].size (f32). WebGPU records buffer copies (no dispatch): the multi-tensor
   *  AdamW gathers an adapter's parameters and gradients with it and scatters the parameters back. */
  packTensors: { t: { parts: Tensor[]; flat: Tensor }; p: { unpack: 0 | 1 } };
  /** One optimiser step's decision, on one thread (optim/adamw.ts; state layout: kernels/cpu/adamw.ts ADAMW_STATE):
   *  normSq[0] = Σ g² over every gradient of the step (sumSquares); records it and whether it is finite as record
   *  `record` of `state`; when finite the step applies with gradScale = (clip > 0 and norm > clip) ?
   *  clip / (norm + 1e-6) : 1 and lr, bc1, bc2 from the host-written table entry (state[STEP] - known), and
   *  state[STEP] += 1; when not, the step is marked skipped. Nothing is read back: the host reads the records later. */
  adamwPrepare: {
    t: { normSq: Tensor; state: Tensor };
    p: { known: number; record: number; capacity: number; clip: number };
  };
  /** `adamw` on a flat run of n parameters with the gradScale, lr and bias corrections adamwPrepare left in
   *  `state`; p, m, v stay untouched when it marked the step skipped (non-finite gradients). */
  adamwApply: {
    t: { p: Tensor; g: Tensor; m: Tensor; v: Tensor; state: Tensor };
    p: { n: number; beta1: number; beta2: number; eps: number; weightDecay: number };
  };
}

export type KernelName = keyof KernelCatalog;
export type KernelArgs<K extends KernelName> = KernelCatalog[K];
