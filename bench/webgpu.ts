// WebGPU backend benchmark (Dawn in Node): per-dispatch overhead, GFLOP/s of the matmul layouts the decoder
// uses, and the time of the LM-head log-prob, attention decode and AdamW kernels, with the ledger's peak bytes.
// On a machine without a GPU the adapter is SwiftShader (CPU emulation, ~1 GFLOP/s): the numbers there only say
// the path works; run it on a GPU machine for real ones.
//   npm run bench:webgpu               writes bench/results/webgpu.json (the script adds /usr/lib/chromium to
//                                      LD_LIBRARY_PATH: Debian chromium ships the Vulkan loader SwiftShader needs)
// Each timing: one warm-up call (pipeline compile), then the median of 5 samples of `reps` back-to-back calls
// ended by sync().
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Tensor } from '../src/engine/backend.ts';
import { WebGpuBackend } from '../src/engine/backends/webgpu.ts';
import type { KernelArgs, KernelName } from '../src/engine/kernels/catalog.ts';
import { requestDawnDevice } from '../src/cli/webgpu-device.ts';
import { Rng } from '../src/util/rng.ts';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';

const dawn = await requestDawnDevice();
const be = WebGpuBackend.create(dawn.device, { gpuInfo: dawn.description });
const software = /swiftshader|fallback/i.test(dawn.description);
const scale = software ? 1 : 8; // bigger shapes on a real GPU
const rng = new Rng(3);

function rand(shape: number[]): Tensor {
  const t = be.alloc(shape);
  be.upload(
    t,
    Float32Array.from({ length: t.size }, () => rng.normal()),
  );
  return t;
}
function ints(values: number[]): Tensor {
  const t = be.alloc([values.length], 'i32');
  be.upload(t, Int32Array.from(values));
  return t;
}

async function time<K extends KernelName>(kernel: K, args: KernelArgs<K>, reps: number): Promise<number> {
  be.run(kernel, args);
  await be.sync();
  const samples: number[] = [];
  for (let s = 0; s < 5; s++) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) be.run(kernel, args);
    await be.sync();
    samples.push((performance.now() - t0) / 1000 / reps);
  }
  return samples.toSorted((a, b) => a - b)[2];
}

const results: Record<string, Record<string, number | string>> = {};

// dispatch overhead: many tiny elementwise kernels in one batch
{
  const x = rand([64]),
    y = rand([64]);
  const s = await time('axpby', { t: { x, y }, p: { n: 64, a: 1, b: 1 } }, 500);
  results['axpby n=64 (dispatch overhead)'] = { us_per_call: +(s * 1e6).toFixed(2) };
}

// each shape with the kernel the backend picks, then with the vec4 / few-rows variants switched off
const variants: Array<[string, Partial<typeof be.tuning>]> = [
  ['auto', {}],
  ['scalar', { vec4: false, fewRows: false }],
  ['fewRows', { fewRows: true }],
];
for (const [M, N, K, transB] of [
  [64, 64, 64, 1],
  [128, 128, 128, 1],
  [1, 512, 256, 1],
  [8, 512, 256, 1],
  [128, 128, 128, 0],
]) {
  const [m, n, k] = [M === 1 || M === 8 ? M : M * scale, N * scale, K * scale];
  const a = rand([m, k]),
    b = rand(transB ? [n, k] : [k, n]),
    c = rand([m, n]);
  for (const [variant, tuning] of variants) {
    if (variant === 'fewRows' && (m > 8 || !transB)) continue;
    const saved = { ...be.tuning };
    Object.assign(be.tuning, tuning);
    const s = await time(
      'matmul',
      { t: { a, b, c }, p: { M: m, N: n, K: k, transA: 0, transB: transB as 0 | 1, alpha: 1, beta: 0 } },
      software ? 2 : 20,
    );
    Object.assign(be.tuning, saved);
    results[`matmul ${m}x${n}x${k} transB=${transB} ${variant}`] = {
      ms: +(s * 1e3).toFixed(3),
      gflops: +((2 * m * n * k) / s / 1e9).toFixed(3),
    };
  }
  for (const t of [a, b, c]) be.free(t);
}

{
  const [R, D, V] = [8, 64 * scale, 4096 * (software ? 1 : 8)];
  const h = rand([R, D]),
    w = rand([V, D]),
    target = ints(Array.from({ length: R }, (_, i) => i * 7));
  const logp = rand([R]),
    entropy = rand([R]),
    lse = rand([R]);
  const s = await time('logprob', { t: { h, w, target, logp, entropy, lse }, p: { R, D, V } }, software ? 1 : 10);
  results[`logprob R=${R} D=${D} V=${V}`] = {
    ms: +(s * 1e3).toFixed(3),
    gflops: +((2 * R * D * V) / s / 1e9).toFixed(3),
  };
}

{
  const [B, S, H, Hkv, Dh] = [8, 256 * scale, 4, 2, 32];
  const q = rand([B, 1, H, Dh]),
    k = rand([B, S, Hkv, Dh]),
    v = rand([B, S, Hkv, Dh]);
  const keyStart = ints(Array.from({ length: B }, () => 0)),
    o = rand([B, 1, H, Dh]),
    lse = rand([B, H, 1]);
  const s = await time(
    'attention',
    { t: { q, k, v, keyStart, o, lse }, p: { B, T: 1, S, past: S - 1, H, Hkv, Dh } },
    software ? 2 : 20,
  );
  results[`attention decode B=${B} S=${S} H=${H} Hkv=${Hkv} Dh=${Dh}`] = { ms: +(s * 1e3).toFixed(3) };
}

{
  const n = 262144 * scale;
  const p = rand([n]),
    g = rand([n]),
    m = rand([n]),
    v = rand([n]);
  const s = await time(
    'adamw',
    {
      t: { p, g, m, v },
      p: { n, lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, step: 1, gradScale: 1 },
    },
    software ? 2 : 20,
  );
  results[`adamw n=${n}`] = { ms: +(s * 1e3).toFixed(3), gbytes_s: +((n * 4 * 7) / s / 1e9).toFixed(2) };
}

const out = {
  date: new Date().toISOString(),
  node: process.version,
  adapter: dawn.description,
  ledgerPeakBytes: be.ledger().peakBytes,
  dispatches: be.dispatchCount,
  results,
};
for (const [name, r] of Object.entries(results)) console.log(name.padEnd(48), JSON.stringify(r));
console.log(`adapter ${dawn.description}, ledger peak ${be.ledger().peakBytes} bytes`);
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/webgpu.json', JSON.stringify(out, null, 2));
be.destroy();
dawn.device.destroy();
