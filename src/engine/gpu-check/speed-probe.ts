// The GPU self-test's speed probe: a few seconds that give two comparable numbers for an adapter, on fixed shapes
// so results from different machines line up: the matmul's GFLOP/s with the backend's default kernel choice, and
// the decode speed (tokens/s of one sequence) of a small random-weight model through EnginePolicy as training's
// rollouts run it (LoRA merged into the fused inference copy, the default base and KV-cache storage, tokens drawn
// on the device).
import type { WebGpuBackend } from '../backends/webgpu.ts';
import type { ModelConfig } from '../model/config.ts';
import { parameterCount } from '../plan/memory.ts';
import { allLinearLoraPolicy } from '../policy/all-linear-lora.ts';
import { randomWeights } from './random-weights.ts';

/** The matmul shape: C[M, N] = A[M, K] · B[N, K]ᵀ, a prefill-sized activation times a weight matrix. */
export const PROBE_MATMUL = { M: 128, N: 1024, K: 512 } as const;

/** The decode model: a Llama of about 4.2M parameters (4 layers, 4 query / 2 KV heads of 64, vocabulary 4,096). */
export const PROBE_MODEL: ModelConfig = {
  architecture: 'llama',
  hiddenSize: 256,
  intermediateSize: 768,
  numLayers: 4,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 64,
  vocabSize: 4096,
  rmsNormEps: 1e-5,
  ropeTheta: 10000,
  maxPositionEmbeddings: 2048,
  tieWordEmbeddings: true,
  attentionBias: false,
  bosTokenId: null,
  eosTokenIds: [],
};

export const PROBE_DECODE = { prompt: 8, newTokens: 16 } as const;

export interface SpeedProbe {
  matmul: { M: number; N: number; K: number; ms: number; gflops: number };
  decode: { parameters: number; prompt: number; new_tokens: number; ms_per_token: number; tok_s: number };
}

/** Milliseconds per matmul: a warm-up (pipeline compilation), one timed run for an estimate, then as many runs as
 *  fill about 0.2 s (1 to 200) submitted together, so a fast GPU is not timed by its round trips. */
async function timeMatmul(be: WebGpuBackend): Promise<number> {
  const { M, N, K } = PROBE_MATMUL;
  const a = be.alloc([M, K], 'f32', 'gpu-check.a');
  const b = be.alloc([N, K], 'f32', 'gpu-check.b');
  const c = be.alloc([M, N], 'f32', 'gpu-check.c');
  try {
    be.upload(a, new Float32Array(M * K).fill(0.01));
    be.upload(b, new Float32Array(N * K).fill(0.02));
    const run = () => be.run('matmul', { t: { a, b, c }, p: { M, N, K, transA: 0, transB: 1, alpha: 1, beta: 0 } });
    run();
    await be.sync();
    let t0 = performance.now();
    run();
    await be.sync();
    const estimate = performance.now() - t0;
    const reps = Math.max(1, Math.min(200, Math.round(200 / Math.max(estimate, 1e-3))));
    t0 = performance.now();
    for (let i = 0; i < reps; i++) run();
    await be.sync();
    return (performance.now() - t0) / reps;
  } finally {
    for (const t of [a, b, c]) be.free(t);
  }
}

/** Milliseconds per decode step of one sequence (the prefill and the first step excluded). */
async function timeDecode(be: WebGpuBackend): Promise<number> {
  const policy = allLinearLoraPolicy(
    { backend: be, config: PROBE_MODEL, weights: randomWeights(PROBE_MODEL, 7), decoder: { decode: () => '' } },
    { lr: 1e-5 },
  );
  try {
    const prompt = Array.from({ length: PROBE_DECODE.prompt }, (_, i) => 1 + ((i * 37) % (PROBE_MODEL.vocabSize - 1)));
    const request = {
      prompt,
      adapter: 'a',
      maxNewTokens: PROBE_DECODE.newTokens,
      stopStrings: [],
      stopTokenIds: [],
    };
    const sampling = { temperature: 1, topP: 1, topK: 0, seed: 5 };
    const stamps: number[] = [];
    await policy.generate([request], sampling, () => stamps.push(performance.now()));
    // stamps[0]: after the prefill's token; stamps[i]: after decode step i. The prefill and the first step compile
    // their kernels and record the step that later steps replay, so the time runs from the end of step 1.
    const steps = stamps.length - 2;
    if (steps < 1) throw new Error(`speed probe: ${stamps.length} progress calls for ${PROBE_DECODE.newTokens} tokens`);
    return (stamps[stamps.length - 1] - stamps[1]) / steps;
  } finally {
    policy.dispose();
  }
}

export async function probeSpeed(be: WebGpuBackend, onProgress?: (step: string) => void): Promise<SpeedProbe> {
  const { M, N, K } = PROBE_MATMUL;
  onProgress?.(`speed: matmul ${M}x${N}x${K}`);
  const matmulMs = await timeMatmul(be);
  onProgress?.(`speed: decoding ${PROBE_DECODE.newTokens} tokens`);
  const decodeMs = await timeDecode(be);
  return {
    matmul: { M, N, K, ms: round(matmulMs, 3), gflops: round((2 * M * N * K) / (matmulMs * 1e6), 3) },
    decode: {
      parameters: parameterCount(PROBE_MODEL),
      prompt: PROBE_DECODE.prompt,
      new_tokens: PROBE_DECODE.newTokens,
      ms_per_token: round(decodeMs, 3),
      tok_s: round(1000 / decodeMs, 3),
    },
  };
}

/** x to `digits` significant digits */
function round(x: number, digits: number): number {
  return Number(x.toPrecision(digits));
}
