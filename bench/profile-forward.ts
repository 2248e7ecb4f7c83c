// Where the time of one whole-model forward goes, per kernel: the same forward that bench/peer.ts times
// (runSequences over B sequences of T tokens, log-prob + entropy at every position), on the WASM backend, with
// every backend.run call wrapped in a timer. Matmuls are split by shape (M x N x K): where to optimise next.
//   node --experimental-wasm-relaxed-simd --import tsx bench/profile-forward.ts [--model tiny|small|qwen] [--variant simd|relaxed-simd] [--repeats N]
// Prints one line per kernel (milliseconds per forward, share, GFLOP/s for matmuls and the log-prob) and the total.
import { loadavg } from 'node:os';
import { directoryFileSource } from '../src/cli/fs-source.ts';
import type { KernelArgs, KernelName } from '../src/engine/kernels/catalog.ts';
import { WasmBackend } from '../src/engine/backends/wasm.ts';
import { loadHfCheckpoint } from '../src/engine/io/hf-model.ts';
import { packSequences } from '../src/engine/model/batch.ts';
import { runSequences } from '../src/engine/model/decoder.ts';
import { uploadParams } from '../src/engine/model/params.ts';
import { benchTokens } from './browser/measure.ts';
import { benchModel } from './browser/models.ts';

const argv = process.argv.slice(2);
const flag = (name: string, fallback: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const modelName = flag('--model', 'small');
const variant = flag('--variant', 'relaxed-simd') as 'simd' | 'relaxed-simd';
const repeats = Number(flag('--repeats', '5'));
const [dir, B, T] =
  modelName === 'qwen'
    ? [benchModel('qwen2.5-0.5b', 2), 2, 32]
    : modelName === 'tiny'
      ? [benchModel('tiny-rema', 0), 8, 64]
      : [benchModel('small', 0), 8, 64];

const { config: cfg, weights } = await loadHfCheckpoint(directoryFileSource(dir));
const be = await WasmBackend.create({ variant });
const w = { params: uploadParams(be, cfg, weights), lora: null };
const seqs = Array.from({ length: B }, (_, b) => benchTokens(T, b, cfg.vocabSize));
const batch = packSequences(
  seqs.map((tokens) => ({ tokens, positions: tokens.slice(1).map((_, i) => i + 1) })),
  cfg.vocabSize,
);

/** per kernel (matmuls per shape): total ms and FLOPs over the timed forwards, and the fastest forward's ms */
const spent = new Map<string, { ms: number; flops: number; calls: number; thisForward: number; best: number }>();
let timing = false;
const run = be.run.bind(be);
be.run = <K extends KernelName>(kernel: K, args: KernelArgs<K>): void => {
  if (!timing) return run(kernel, args);
  const t0 = performance.now();
  run(kernel, args);
  const ms = performance.now() - t0;
  let key: string = kernel;
  let flops = 0;
  if (kernel === 'matmul') {
    const p = (args as KernelArgs<'matmul'>).p;
    key = `matmul ${p.M}x${p.N}x${p.K}${p.transB ? ' (B^T)' : ''}`;
    flops = 2 * p.M * p.N * p.K;
  } else if (kernel === 'logprob') {
    const p = (args as KernelArgs<'logprob'>).p;
    key = `logprob R ${p.R} D ${p.D} V ${p.V}`;
    flops = 2 * p.R * p.D * p.V;
  }
  const s = spent.get(key) ?? { ms: 0, flops: 0, calls: 0, thisForward: 0, best: Infinity };
  s.ms += ms;
  s.flops += flops;
  s.calls++;
  s.thisForward += ms;
  spent.set(key, s);
};

await runSequences(be, cfg, w, batch, null); // warm-up
const walls: number[] = [];
timing = true;
for (let i = 0; i < repeats; i++) {
  const t0 = performance.now();
  await runSequences(be, cfg, w, batch, null);
  walls.push(performance.now() - t0);
  for (const s of spent.values()) {
    s.best = Math.min(s.best, s.thisForward);
    s.thisForward = 0;
  }
}
const wall = walls.reduce((a, b) => a + b, 0) / repeats;
const kernelMs = [...spent.values()].reduce((a, s) => a + s.ms, 0) / repeats;
console.log(
  `${modelName}: B ${B} x T ${T}, ${be.description}, load average ${loadavg()[0].toFixed(2)}, ${repeats} forwards`,
);
const fastest = Math.min(...walls);
console.log(
  `forward ${wall.toFixed(1)} ms wall on average (${(((B * T) / wall) * 1000).toFixed(0)} tok/s), fastest ${fastest.toFixed(1)} ms ` +
    `(${(((B * T) / fastest) * 1000).toFixed(0)} tok/s); kernels ${kernelMs.toFixed(1)} ms, outside kernels ${(wall - kernelMs).toFixed(1)} ms`,
);
console.log(
  `  ${'kernel'.padEnd(36)} ${'mean ms'.padStart(8)}  ${'share'.padStart(6)}  calls  ${'best ms'.padStart(8)}  GFLOP/s mean / best`,
);
for (const [key, s] of [...spent.entries()].toSorted((a, b) => b[1].ms - a[1].ms)) {
  const ms = s.ms / repeats;
  const gflops = s.flops
    ? `  ${(s.flops / s.ms / 1e6).toFixed(1)} / ${(s.flops / repeats / s.best / 1e6).toFixed(1)}`
    : '';
  console.log(
    `  ${key.padEnd(36)} ${ms.toFixed(2).padStart(8)}  ${((100 * ms) / wall).toFixed(1).padStart(5)} %  ${String(s.calls / repeats).padStart(5)}  ${s.best.toFixed(2).padStart(8)}${gflops}`,
  );
}
be.destroy();
