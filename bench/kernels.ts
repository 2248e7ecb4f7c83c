// Kernel benchmark: GFLOP/s of the heavy kernels on the plain TypeScript backend vs WebAssembly SIMD vs relaxed
// SIMD, at the shapes of a tiny model (D 96, 3 layers, 4/2 heads of 24, F 264, V 61: a little larger than
// tiny-rema's D 64, F 176, V 256; a GRPO batch of 8 problems x group 8 ≈ 1024 rows per chunk), of tiny-rema's
// LoRA gradients, and of a SmolLM-135M layer (D 576, F 1536).
//   npm run bench:kernels                 (Node with --experimental-wasm-relaxed-simd, so all three variants run)
//   npm run bench:kernels -- attention    (only the cases whose name contains "attention")
// A full run writes bench/results/kernels.json. Timings: median of 7 samples, each ≥ 40 ms of back-to-back calls, after warm-up.
// Two clocks: wall time, and this process's CPU time (process.cpuUsage) — on a machine shared with other jobs
// the CPU-time figure is the one that says what the kernel does when it has a core to itself.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Backend, Tensor } from '../src/engine/backend.ts';
import { CpuBackend } from '../src/engine/backends/cpu.ts';
import { WasmBackend } from '../src/engine/backends/wasm.ts';
import { WasmRuntime } from '../src/engine/backends/wasm/runtime.ts';
import type { KernelArgs, KernelName } from '../src/engine/kernels/catalog.ts';
import { Rng } from '../src/util/rng.ts';

interface Case {
  name: string;
  flops: number;
  /** allocate inputs on a backend and return the call to time */
  setup(be: Backend): () => void;
}

const rng = new Rng(7);
function rand(be: Backend, shape: number[], scale = 1): Tensor {
  const t = be.alloc(shape);
  const n = t.size;
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = (rng.next() - 0.5) * 2 * scale;
  be.upload(t, data);
  return t;
}
function ints(be: Backend, values: number[]): Tensor {
  const t = be.alloc([values.length], 'i32');
  be.upload(t, Int32Array.from(values));
  return t;
}
function call<K extends KernelName>(be: Backend, kernel: K, args: KernelArgs<K>): () => void {
  return () => be.run(kernel, args);
}

function matmulCase(label: string, M: number, N: number, K: number, transA: 0 | 1, transB: 0 | 1): Case {
  return {
    name: `matmul ${label} M=${M} N=${N} K=${K}${transA ? ' transA' : ''}${transB ? ' transB' : ''}`,
    flops: 2 * M * N * K,
    setup: (be) => {
      const t = { a: rand(be, [M * K]), b: rand(be, [K * N]), c: be.alloc([M, N]) };
      return call(be, 'matmul', { t, p: { M, N, K, transA, transB, alpha: 1, beta: 0 } });
    },
  };
}

function attentionCase(B: number, T: number, H: number, Hkv: number, Dh: number, backward: boolean): Case {
  const pairs = (B * H * T * (T + 1)) / 2; // causal (query, key) pairs
  return {
    name: `attention${backward ? 'Backward' : ''} B=${B} T=${T} H=${H} Hkv=${Hkv} Dh=${Dh}`,
    flops: pairs * Dh * (backward ? 8 : 4),
    setup: (be) => {
      const t = {
        q: rand(be, [B, T, H, Dh]),
        k: rand(be, [B, T, Hkv, Dh]),
        v: rand(be, [B, T, Hkv, Dh]),
        keyStart: ints(
          be,
          Array.from({ length: B }, () => 0),
        ),
        o: be.alloc([B, T, H, Dh]),
        lse: be.alloc([B, H, T]),
      };
      const p = { B, T, S: T, past: 0, H, Hkv, Dh };
      be.run('attention', { t, p });
      if (!backward) return call(be, 'attention', { t, p });
      const g = {
        dout: rand(be, [B, T, H, Dh]),
        dq: be.alloc([B, T, H, Dh]),
        dk: be.alloc([B, T, Hkv, Dh]),
        dv: be.alloc([B, T, Hkv, Dh]),
      };
      return call(be, 'attentionBackward', { t: { ...t, ...g }, p: { B, T, S: T, past: 0, H, Hkv, Dh } });
    },
  };
}

function logprobCase(R: number, D: number, V: number, backward: boolean): Case {
  return {
    name: `logprob${backward ? 'Backward (+dw)' : ''} R=${R} D=${D} V=${V}`,
    flops: 2 * R * D * V * (backward ? 3 : 1),
    setup: (be) => {
      const t = {
        h: rand(be, [R, D]),
        w: rand(be, [V, D], 0.1),
        target: ints(
          be,
          Array.from({ length: R }, (_, r) => (r * 31) % V),
        ),
        logp: be.alloc([R]),
        entropy: be.alloc([R]),
        lse: be.alloc([R]),
      };
      be.run('logprob', { t, p: { R, D, V } });
      if (!backward) return call(be, 'logprob', { t, p: { R, D, V } });
      const g = { coef: rand(be, [R]), entCoef: rand(be, [R], 0.01), dh: be.alloc([R, D]), dw: be.alloc([V, D]) };
      return call(be, 'logprobBackward', { t: { ...t, ...g }, p: { R, D, V } });
    },
  };
}

const cases: Case[] = [
  // tiny default, 1024 rows: q/o projection, gate/up, down, their input gradients and weight gradients
  matmulCase('tiny qo', 1024, 96, 96, 0, 1),
  matmulCase('tiny gate/up', 1024, 264, 96, 0, 1),
  matmulCase('tiny down', 1024, 96, 264, 0, 1),
  matmulCase('tiny dX', 1024, 96, 264, 0, 0),
  matmulCase('tiny dW', 264, 96, 1024, 1, 0),
  matmulCase('tiny LoRA A', 1024, 8, 96, 0, 1),
  matmulCase('tiny LoRA B', 1024, 96, 8, 0, 1),
  // one decode step of a GRPO group (G = 8 rows) and of a single stream
  matmulCase('decode G=8 gate/up', 8, 264, 96, 0, 1),
  matmulCase('decode G=1 qo', 1, 96, 96, 0, 1),
  // SmolLM-135M layer at 256 rows
  matmulCase('smol qo', 256, 576, 576, 0, 1),
  matmulCase('smol up', 256, 1536, 576, 0, 1),
  attentionCase(8, 128, 4, 2, 24, false),
  attentionCase(8, 128, 4, 2, 24, true),
  logprobCase(1024, 96, 61, false),
  logprobCase(256, 576, 8192, false),
  logprobCase(256, 576, 8192, true),
];

function median(xs: number[]): number {
  const s = xs.toSorted((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** seconds per call: { wall, cpu } medians */
function measure(fn: () => void): { wall: number; cpu: number } {
  const warmEnd = performance.now() + 150;
  while (performance.now() < warmEnd) fn();
  const wall: number[] = [],
    cpu: number[] = [];
  for (let s = 0; s < 7; s++) {
    let calls = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let t1 = t0;
    while (t1 - t0 < 40) {
      fn();
      calls++;
      t1 = performance.now();
    }
    const c = process.cpuUsage(c0);
    wall.push((t1 - t0) / 1000 / calls);
    cpu.push((c.user + c.system) / 1e6 / calls);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

/** Weight-gradient products (op(A) stored [K,M], K = the batch's rows) of the tiny-rema model's LoRA at 3222 rows,
 *  one thread: op(A) packed into blocks first (packA + packB + the 4x8 kernel) vs read in place (matmulDirect, B
 *  read in place too where N is a multiple of 8), the two giving the same bits. Prints the ratio packed / in place. */
async function transposedAInPlace(): Promise<Record<string, { packed: number; inPlace: number }>> {
  const be = await WasmBackend.create({ threads: 1 });
  const rt = be.runtime,
    x = rt.exports;
  const out: Record<string, { packed: number; inPlace: number }> = {};
  console.log('op(A) stored [K,M]: GFLOP/s (CPU time) packed copy / read in place, and the ratio');
  for (const [label, M, N, K] of [
    ['LoRA dB (q, o)', 64, 8, 3222],
    ['LoRA dB (gate, up)', 176, 8, 3222],
    ['LoRA dA', 8, 64, 3222],
    ['LoRA dA (down)', 8, 176, 3222],
  ] as const) {
    rt.reserveMatmul(M, N, K);
    const a = rt.heap.alloc(M * K * 4),
      b = rt.heap.alloc(K * N * 4),
      c = rt.heap.alloc(M * N * 4);
    const pa = rt.heap.alloc(WasmRuntime.packABytes(M, K)),
      pb = rt.heap.alloc(WasmRuntime.packBytes(N, K));
    rt.f32At(a, M * K).fill(0.5);
    rt.f32At(b, K * N).fill(0.25);
    const packed = measure(() => {
      x.packA(a, pa, M, K, 1);
      x.packB(b, pb, N, K, 0);
      x.matmul(pa, pb, c, 0, M, N, K, 1, 1);
    });
    const inPlace = measure(() => rt.matmulAt(a, b, c, 0, M, N, K, 1, 0, 1, 1));
    const flops = 2 * M * N * K;
    out[`${label} M=${M} N=${N} K=${K}`] = { packed: flops / packed.cpu / 1e9, inPlace: flops / inPlace.cpu / 1e9 };
    console.log(
      `  ${label.padEnd(20)} M=${M} N=${N} K=${K}`.padEnd(52),
      `${(flops / packed.cpu / 1e9).toFixed(1)} / ${(flops / inPlace.cpu / 1e9).toFixed(1)}: ${(packed.cpu / inPlace.cpu).toFixed(2)}x`,
    );
    for (const p of [a, b, c, pa, pb]) rt.heap.release(p);
  }
  be.destroy();
  return out;
}

async function main(): Promise<void> {
  const support = WasmBackend.support();
  const backends: Array<[string, () => Promise<Backend>]> = [['ts', async () => new CpuBackend()]];
  if (support.simd) backends.push(['wasm-simd', () => WasmBackend.create({ variant: 'simd' })]);
  if (support['relaxed-simd']) backends.push(['wasm-relaxed', () => WasmBackend.create({ variant: 'relaxed-simd' })]);
  else console.log('relaxed SIMD not available here (Node 20 needs --experimental-wasm-relaxed-simd)');

  const filter = process.argv[2] ?? '';
  const selected = cases.filter((c) => c.name.includes(filter));
  const results: Record<string, Record<string, { wall: number; cpu: number }>> = {};
  for (const c of selected) results[c.name] = {};
  for (const [name, make] of backends) {
    const be = await make();
    for (const c of selected) {
      const seconds = measure(c.setup(be));
      results[c.name][name] = { wall: c.flops / seconds.wall / 1e9, cpu: c.flops / seconds.cpu / 1e9 };
    }
    be.destroy();
  }
  const cols = backends.map(([n]) => n);
  console.log(`GFLOP/s (Node ${process.version}, single thread); each cell: by CPU time / by wall time`);
  console.log(['kernel'.padEnd(52), ...cols.map((c) => c.padStart(16))].join(''));
  for (const c of selected) {
    const cell = (col: string) =>
      `${results[c.name][col].cpu.toFixed(1)} / ${results[c.name][col].wall.toFixed(1)}`.padStart(16);
    console.log([c.name.padEnd(52), ...cols.map(cell)].join(''));
  }
  const transposedA = !filter || 'transA'.includes(filter) ? await transposedAInPlace() : null;
  if (filter) return; // a partial run does not replace the saved results
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/kernels.json',
    JSON.stringify({ node: process.version, date: new Date().toISOString(), gflops: results, transposedA }, null, 2),
  );
}

await main();
