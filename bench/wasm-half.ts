// Frozen weights stored as f16 / bf16 on the WASM backend vs f32: speed and memory, one thread, wall clock:
//   node --experimental-wasm-relaxed-simd --import tsx bench/wasm-half.ts [--layers N] -> bench/results/wasm-half.json
// 1. single matmuls x W^T at SmolLM2-135M's projection shapes (decode rows M = 8: the in-place few-rows kernel;
//    training rows M = 512: the packed kernel, whose packing widens the halves), median of 15;
// 2. the decoder on SmolLM2-135M's shape (random weights, --layers of its 30 layers, default 4; full vocabulary):
//    KV-cache decode of 8 sequences (tok/s), a LoRA r8 forward+backward chunk of 2 x 128 tokens (tok/s), median of
//    3, and the allocation ledger's live weight bytes.
// The machine is shared (2 vCPUs, other sessions' work): the load average is printed before and after.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { WasmBackend } from '../src/engine/backends/wasm.ts';
import { loraBenchPolicy } from './lora-bench-policy.ts';
import type { ModelConfig, ModelWeights } from '../src/engine/model/config.ts';
import { expectedParameterShapes } from '../src/engine/model/params.ts';
import { Rng } from '../src/util/rng.ts';

type Dtype = 'f32' | 'f16' | 'bf16';
const DTYPES: Dtype[] = ['f32', 'f16', 'bf16'];
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const layers = arg('--layers', 4);

function median(xs: number[]): number {
  const s = xs.toSorted((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function randn(n: number, rng: Rng, scale: number): Float32Array {
  return Float32Array.from({ length: n }, () => scale * rng.normal());
}

async function matmuls(): Promise<Array<Record<string, number | string>>> {
  const out: Array<Record<string, number | string>> = [];
  const rng = new Rng(1);
  for (const [name, N, K] of [
    ['q/o 576x576', 576, 576],
    ['gate/up 1536x576', 1536, 576],
    ['down 576x1536', 576, 1536],
  ] as const) {
    for (const M of [8, 512]) {
      const row: Record<string, number | string> = { shape: name, M };
      for (const d of DTYPES) {
        const be = await WasmBackend.create({ threads: 1 });
        const a = be.alloc([M, K]);
        be.upload(a, randn(M * K, rng, 1));
        const w = be.alloc([N, K], d === 'f32' ? 'f32' : d);
        be.upload(w, randn(N * K, rng, 0.05));
        const c = be.alloc([M, N]);
        const p = { M, N, K, transA: 0 as const, transB: 1 as const, alpha: 1, beta: 0 };
        const times: number[] = [];
        for (let i = 0; i < 17; i++) {
          const t0 = performance.now();
          be.run('matmul', { t: { a, b: w, c }, p });
          if (i >= 2) times.push(performance.now() - t0);
        }
        row[`${d}_ms`] = Number(median(times).toFixed(3));
        row[`${d}_gflops`] = Number(((2 * M * N * K) / (median(times) * 1e6)).toFixed(2));
        be.destroy();
      }
      out.push(row);
      console.log(JSON.stringify(row));
    }
  }
  return out;
}

function smolConfig(): ModelConfig {
  return {
    architecture: 'llama',
    hiddenSize: 576,
    intermediateSize: 1536,
    numLayers: layers,
    numHeads: 9,
    numKvHeads: 3,
    headDim: 64,
    vocabSize: 49152,
    rmsNormEps: 1e-5,
    ropeTheta: 100000,
    maxPositionEmbeddings: 8192,
    tieWordEmbeddings: true,
    attentionBias: false,
    bosTokenId: 1,
    eosTokenIds: [2],
  };
}

function weightsFor(cfg: ModelConfig): ModelWeights {
  const rng = new Rng(3);
  const w: ModelWeights = new Map();
  for (const [name, shape] of expectedParameterShapes(cfg)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const norm = name.endsWith('norm.weight');
    const data = norm
      ? new Float32Array(n).fill(1)
      : randn(n, rng, name.includes('embed') ? 0.5 : 1 / Math.sqrt(shape[1]));
    w.set(name, { shape: [...shape], data });
  }
  return w;
}

async function model(): Promise<Array<Record<string, number | string>>> {
  const cfg = smolConfig();
  const weights = weightsFor(cfg);
  const out: Array<Record<string, number | string>> = [];
  for (const d of DTYPES) {
    const be = await WasmBackend.create({ threads: 1 });
    const policy = loraBenchPolicy({
      backend: be,
      config: cfg,
      weights,
      seed: 0,
      baseDtype: d,
      mergeLoraForInference: false,
    });
    const weightBytes = be.ledger().liveBytes;
    const prompt = Array.from({ length: 64 }, (_, i) => 10 + i);
    const decode: number[] = [];
    const train: number[] = [];
    for (let rep = 0; rep < 3; rep++) {
      const reqs = Array.from({ length: 8 }, () => ({
        prompt,
        adapter: 'a',
        maxNewTokens: 16,
        stopStrings: [],
        stopTokenIds: [],
      }));
      const t0 = performance.now();
      const gen = await policy.generate(reqs, { temperature: 1, topP: 1, topK: 0, seed: rep });
      decode.push(gen.reduce((s, g) => s + g.tokens.length, 0) / ((performance.now() - t0) / 1000));
      policy.zeroGrad('a');
      const rows = Array.from({ length: 2 }, (_, r) => ({
        tokens: Array.from({ length: 128 }, (_x, i) => 5 + ((r * 31 + i * 7) % 40000)),
        positions: Array.from({ length: 64 }, (_x, i) => 64 + i),
        adapter: 'a',
        coef: new Float32Array(64).fill(0.01),
      }));
      const t1 = performance.now();
      await policy.accumulateGradients(rows);
      train.push((2 * 128) / ((performance.now() - t1) / 1000));
    }
    const row = {
      weights: d,
      layers,
      decode_tok_s: Number(median(decode).toFixed(1)),
      train_tok_s: Number(median(train).toFixed(1)),
      weight_bytes: weightBytes,
      peak_bytes: be.ledger().peakBytes,
    };
    console.log(JSON.stringify(row));
    out.push(row);
    policy.dispose();
    be.destroy();
  }
  return out;
}

const load0 = loadavg()[0];
const result = { load_before: load0, matmuls: await matmuls(), model: await model(), load_after: loadavg()[0] };
console.log(`load average ${load0.toFixed(2)} -> ${result.load_after.toFixed(2)}`);
const dir = resolve(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'wasm-half.json'), JSON.stringify(result, null, 2) + '\n');
