// `npm run bench`: every benchmark of the project in one run on one machine state, then one summary of ratios.
// Parts (each in its own child process, so one part's memory is gone before the next starts):
//   kernels  bench/kernels.ts  GFLOP/s per kernel: plain TS vs WASM SIMD vs relaxed SIMD
//   engine   bench/engine.ts   prefill/decode tok/s B=1 vs G=8, train step forward/backward/optimiser,
//                              ledger peak bytes, engine vs onnxruntime-node on the golden ONNX models
//   webgpu   bench/webgpu.ts   WebGPU backend kernels through Dawn (SwiftShader here: correctness only)
//   peer     bench/peer.ts     our CPU backends (TS, WASM SIMD, relaxed SIMD) vs onnxruntime-node on the embedded
//                              tiny-rema and random benchmark models (Qwen2.5-0.5B's exact shape, fewer layers)
//   grpo     bench/peer.ts     one real GRPO step of the tiny default (8 problems x group 8), when
//                              public/models/tiny-rema holds the trained tiny model
//   trl      bench/trl.ts      the same GRPO step on our trainer and on Hugging Face TRL (PyTorch CPU, 2 threads),
//                              alternated: the vrp-rl preset on tiny-rema (8 x G 8) and 1 x G 8 on a random model of
//                              SmolLM2-135M's shape; skipped where scripts/trl/.venv lacks TRL
//   browser  bench/browser/    Chromium: our WebGPU and WASM backends vs onnxruntime-web (WASM and WebGPU EPs) and
//                              vs transformers.js (wasm and webgpu devices), on `small` and (full run) the
//                              Qwen2.5-0.5B-config model with 2 layers (WASM runtimes only)
//   page     bench/browser/page-train.ts  the page (built, in Chromium) trains tiny-default next to `rema train`:
//                              step time of each and page / CLI, where the page's time goes (--quick: 6 steps)
//   npm run bench [-- --quick] [--only kernels,peer] [--skip browser]
// --quick: smaller shapes, fewer repeats, no Qwen-shaped model, no whole-engine run on a software WebGPU adapter.
// Each part writes bench/results/<part>.json; this file adds bench/results/summary.json (machine, versions,
// date, the ratios printed below).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const listArg = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1].split(',') : null);
const PARTS = ['kernels', 'engine', 'webgpu', 'peer', 'grpo', 'trl', 'browser', 'page'] as const;
type Part = (typeof PARTS)[number];
const only = listArg('--only');
const skip = listArg('--skip') ?? [];
for (const p of [...(only ?? []), ...skip])
  if (!PARTS.includes(p as Part)) throw new Error(`bench: unknown part "${p}" (parts: ${PARTS.join(', ')})`);
const selected = PARTS.filter((p) => (only ? only.includes(p) : true) && !skip.includes(p));

const NODE_FLAGS = ['--experimental-wasm-relaxed-simd', '--import', 'tsx'];
// Dawn in Node finds SwiftShader through Debian chromium's Vulkan ICD and loader when there is no GPU driver
const chromiumLibs = `${process.env.LD_LIBRARY_PATH ? `${process.env.LD_LIBRARY_PATH}:` : ''}/usr/lib/chromium`;
const dawnEnv = {
  LD_LIBRARY_PATH: chromiumLibs,
  VK_ICD_FILENAMES: process.env.VK_ICD_FILENAMES ?? '/usr/lib/chromium/vk_swiftshader_icd.json',
};
const commands: Record<Part, { args: string[]; env?: Record<string, string> }> = {
  kernels: {
    args: [
      '--experimental-wasm-relaxed-simd',
      '--no-liftoff',
      '--import',
      'tsx',
      'bench/kernels.ts',
      ...(quick ? ['tiny'] : []),
    ],
  },
  engine: { args: [...NODE_FLAGS, 'bench/engine.ts', ...(quick ? ['--quick'] : ['--webgpu'])], env: dawnEnv },
  webgpu: { args: [...NODE_FLAGS, 'bench/webgpu.ts'], env: dawnEnv },
  peer: { args: [...NODE_FLAGS, 'bench/peer.ts', ...(quick ? ['--quick'] : [])] },
  grpo: { args: [...NODE_FLAGS, 'bench/peer.ts', '--grpo'] },
  trl: { args: [...NODE_FLAGS, 'bench/trl.ts', ...(quick ? ['--quick'] : [])] },
  browser: { args: [...NODE_FLAGS, 'bench/browser/driver.ts', ...(quick ? ['--quick'] : [])] },
  page: { args: [...NODE_FLAGS, 'bench/browser/page-train.ts', ...(quick ? ['--steps', '6'] : [])] },
};

const runStart = new Date().toISOString();
const wall: Record<string, number> = {};
const failed: string[] = [];
for (const part of selected) {
  console.log(`\n=== ${part} ===`);
  const t0 = performance.now();
  const { args, env } = commands[part];
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  wall[part] = +((performance.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) failed.push(`${part} (exit ${r.status ?? r.signal})`);
  console.log(`--- ${part}: ${wall[part]} s${r.status === 0 ? '' : `, FAILED with exit ${r.status ?? r.signal}`}`);
}

type Json = Record<string, unknown>;
const read = (name: string): Json | null => {
  const path = join(root, 'bench/results', `${name}.json`);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Json) : null;
};
const version = (pkg: string): string => {
  const path = join(root, 'node_modules', pkg, 'package.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version : 'not installed';
};
/** ' [from an earlier run: DATE]' when a part's JSON was not written by this run (--only, --skip, a filtered run). */
const earlier = (json: Json | null): string =>
  json && typeof json.date === 'string' && json.date < runStart ? ` [from an earlier run: ${json.date}]` : '';
const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();

/** Lines of the summary: each a ratio against a named peer, or a plain figure with its unit. */
const lines: string[] = [];
const mb = (x: unknown) => ((x as number) / 2 ** 20).toFixed(1);
const fmt = (x: unknown) =>
  typeof x === 'number' ? (Math.abs(x) >= 100 ? Math.round(x).toString() : x.toFixed(2)) : String(x);

type Gflops = number | { wall: number; cpu: number };
const kernels = read('kernels') as { gflops?: Record<string, Record<string, Gflops>> } | null;
if (kernels?.gflops) {
  const cpu = (g: Gflops | undefined) => (g === undefined ? NaN : typeof g === 'number' ? g : g.cpu);
  lines.push(
    `GFLOP/s per kernel (single thread, per CPU-second): TS | WASM SIMD | relaxed SIMD   (SIMD / TS, relaxed / SIMD)${earlier(kernels as Json)}`,
  );
  for (const [name, g] of Object.entries(kernels.gflops)) {
    const [ts, simd, relaxed] = [cpu(g.ts), cpu(g['wasm-simd']), cpu(g['wasm-relaxed'])];
    lines.push(
      `  ${name.padEnd(50)} ${fmt(ts)} | ${fmt(simd)} | ${fmt(relaxed)}   (${fmt(simd / ts)}x, ${fmt(relaxed / simd)}x)`,
    );
  }
}

const engine = read('engine') as { models?: Json[]; onnx?: Json[] } | null;
if (engine?.models) {
  lines.push(
    `Engine (bench/engine.ts, random weights): tok/s prefill B=1 | B=8, decode G=1 | G=8 (G=8 / G=1); train step fwd/bwd/opt s; peak MB${earlier(engine as Json)}`,
  );
  for (const m of engine.models) {
    lines.push(
      `  ${String(m.backend).padEnd(34)} ${String(m.preset).padEnd(6)} prefill ${fmt(m.prefill_tok_s_B1)} | ${fmt(m.prefill_tok_s_B8)}, ` +
        `decode ${fmt(m.decode_tok_s_G1)} | ${fmt(m.decode_tok_s_G8)} (${fmt((m.decode_tok_s_G8 as number) / (m.decode_tok_s_G1 as number))}x); ` +
        `LoRA ${m.lora_forward_s}/${m.lora_backward_s}/${m.lora_optimizer_s}, full ${m.full_forward_s}/${m.full_backward_s}/${m.full_optimizer_s}; ` +
        `peak infer ${mb(m.inference_peak_bytes)}, LoRA ${mb(m.lora_peak_bytes)}, full ${mb(m.full_peak_bytes)}`,
    );
  }
  for (const o of engine.onnx ?? []) {
    const ratios = Object.entries(o)
      .filter(([k]) => k.endsWith('_vs_ort'))
      .map(([k, v]) => `${k.replace('_vs_ort', '')} ${fmt(v)}x`);
    lines.push(
      `  golden ${String(o.model).padEnd(24)} forward vs onnxruntime-node (${fmt(o.onnxruntime_tok_s)} tok/s): ${ratios.join(', ')}`,
    );
  }
}

const webgpu = read('webgpu') as { adapter?: string; results?: Record<string, Json> } | null;
if (webgpu?.results) {
  const software = /swiftshader|fallback/i.test(webgpu.adapter ?? '');
  lines.push(
    `WebGPU backend kernels (Dawn, ${webgpu.adapter}${software ? ': CPU emulation, correctness only, not a speed figure' : ''})${earlier(webgpu as Json)}`,
  );
  for (const [name, r] of Object.entries(webgpu.results)) lines.push(`  ${name.padEnd(48)} ${JSON.stringify(r)}`);
}

const peer = read('peer') as {
  models?: Array<{ model: string; runtimes: Json[]; ratios: Record<string, Record<string, number>>; train?: Json[] }>;
} | null;
for (const m of peer?.models ?? []) {
  lines.push(
    `Engine vs onnxruntime-node (1 thread, CPU time) on ${m.model}: ratio = ours / onnxruntime, per figure${earlier(peer as Json)}`,
  );
  lines.push(`  ${'runtime'.padEnd(22)} forward   prefill B=1  prefill G=8  decode G=1  decode G=8`);
  for (const [rt, r] of Object.entries(m.ratios)) {
    lines.push(
      `  ${rt.padEnd(22)} ${[r.forward_tok_s, r.prefill_tok_s_B1, r.prefill_tok_s_G, r.decode_tok_s_G1, r.decode_tok_s_G].map((x) => `${fmt(x)}x`.padEnd(12)).join(' ')}`,
    );
  }
  for (const r of m.runtimes) {
    lines.push(
      `  tok/s ${String(r.runtime).padEnd(16)} forward ${fmt(r.forward_tok_s)}, prefill ${fmt(r.prefill_tok_s_B1)} | ${fmt(r.prefill_tok_s_G)}, decode ${fmt(r.decode_tok_s_G1)} | ${fmt(r.decode_tok_s_G)}`,
    );
  }
  for (const t of m.train ?? [])
    lines.push(
      `  forward+backward (LoRA) ${String(t.runtime).padEnd(16)} ${fmt(t.tok_s)} tok/s, peak ${fmt((t.peak_bytes as number) / 2 ** 20)} MB`,
    );
}

const grpo = read('grpo') as Json | null;
if (grpo)
  lines.push(
    grpo.skipped
      ? `GRPO step (tiny default): skipped, ${grpo.skipped}${earlier(grpo)}`
      : `GRPO step (tiny default, ${grpo.backend}, 8 problems x group 8): ${fmt(grpo.step_s)} s, stages ${Object.entries(
          // a grpo.json recorded with the key phases_s reads the same
          (grpo.stages_s ?? grpo.phases_s) as Record<string, number>,
        )
          .map(([k, v]) => `${k} ${v.toFixed(2)}`)
          .join(
            ', ',
          )} s; ${fmt(grpo.step_gflop)} GFLOP / (${fmt(grpo.kernel_gflops)} GFLOP/s matmul kernel x ${fmt(grpo.threads)} threads) = limit ${fmt(grpo.limit_s)} s, step / limit ${fmt(grpo.step_over_limit)}; evaluation (${fmt((grpo.evaluation as Json).problems)} problems) ${fmt((grpo.evaluation as Json).wall_s)} s${grpo.full_run ? `; 60-step run ${fmt((grpo.full_run as Json).wall_s)} s` : ''}${earlier(grpo)}`,
  );

const trl = read('trl') as {
  skipped?: string;
  load_average?: { before: number[] };
  results?: Array<{
    workload: string;
    ours: { median_step_s: number; mean_tokens: number };
    trl: { median_step_s: number; mean_tokens: number; threads: number };
    speed_ratio_ours_vs_trl: number;
    tokens_match: boolean;
  }>;
} | null;
if (trl?.skipped) lines.push(`TRL: skipped, ${trl.skipped}${earlier(trl as Json)}`);
for (const r of trl?.results ?? [])
  lines.push(
    `GRPO step vs TRL (PyTorch CPU, ${r.trl.threads} threads; load ${trl?.load_average?.before[0]?.toFixed(1) ?? '?'}) ${r.workload}: ours ${fmt(r.ours.median_step_s)} s, TRL ${fmt(r.trl.median_step_s)} s: ${fmt(r.speed_ratio_ours_vs_trl)}x; tokens per step ${fmt(r.ours.mean_tokens)} vs ${fmt(r.trl.mean_tokens)}${r.tokens_match ? '' : ' (DIFFER by more than 5%)'}${earlier(trl as Json)}`,
  );

const browser = read('browser') as {
  chromium?: string;
  adapter?: string;
  load_average?: number[];
  models?: Array<{ model: string; runtimes: Json[]; ratios: Record<string, Record<string, number>> }>;
} | null;
for (const m of browser?.models ?? []) {
  lines.push(
    `Chromium ${browser?.chromium} (${browser?.adapter}) on ${m.model}, WASM: renderer main-thread CPU time, WebGPU: wall time, load average ${browser?.load_average?.join(' ') ?? '?'}: ` +
      `ratio = ours / the peer (onnxruntime-web EP, transformers.js device) of the same kind${earlier(browser as Json)}`,
  );
  for (const [pair, r] of Object.entries(m.ratios)) {
    lines.push(
      `  ${pair.padEnd(34)} forward ${fmt(r.forward_tok_s)}x, prefill ${fmt(r.prefill_tok_s_B1)}x | ${fmt(r.prefill_tok_s_G)}x, decode ${fmt(r.decode_tok_s_G1)}x | ${fmt(r.decode_tok_s_G)}x`,
    );
  }
  for (const r of m.runtimes) {
    lines.push(
      `  tok/s ${String(r.runtime).padEnd(24)} forward ${fmt(r.forward_tok_s)}, prefill ${fmt(r.prefill_tok_s_B1)} | ${fmt(r.prefill_tok_s_G)}, decode ${fmt(r.decode_tok_s_G1)} | ${fmt(r.decode_tok_s_G)}`,
    );
  }
}

const page = read('page') as {
  steps?: number;
  backend?: string;
  load_average?: { before: number[] };
  page?: { step_s_median: number; cpu_s_per_step_total: number; per_step_mean_s: Record<string, number> };
  cli?: { step_s_median: number; cpu_s_per_step_total: number } | null;
  ratio_page_vs_cli?: number | null;
  cpu_ratio_page_vs_cli?: number | null;
} | null;
if (page?.page)
  lines.push(
    `Page vs CLI, tiny-default on ${page.backend} (${page.steps} steps, median step; load ${page.load_average?.before[0] ?? '?'}): ` +
      `page ${fmt(page.page.step_s_median)} s, rema train ${fmt(page.cli?.step_s_median ?? '-')} s, page / CLI ${fmt(page.ratio_page_vs_cli ?? '-')}; ` +
      `CPU s per step ${fmt(page.page.cpu_s_per_step_total)} vs ${fmt(page.cli?.cpu_s_per_step_total ?? '-')} (${fmt(page.cpu_ratio_page_vs_cli ?? '-')}x)${earlier(page as Json)}`,
  );

console.log('\n=== summary ===');
for (const l of lines) console.log(l);
// a partial run (--only) keeps the other parts' results and wall times from the previous summary
const previous = read('summary') as { wall_s?: Record<string, number> } | null;
const summary = {
  date: new Date().toISOString(),
  git,
  quick,
  parts: selected,
  failed,
  wall_s: { ...previous?.wall_s, ...wall },
  machine: {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memory_gib: +(totalmem() / 2 ** 30).toFixed(1),
    platform: `${process.platform} ${process.arch}`,
  },
  versions: {
    node: process.version,
    'onnxruntime-node': version('onnxruntime-node'),
    'onnxruntime-web': version('onnxruntime-web'),
    '@huggingface/transformers': version('@huggingface/transformers'),
    'onnxruntime-web (transformers.js)': version('@huggingface/transformers/node_modules/onnxruntime-web'),
    webgpu: version('webgpu'),
    chromium: browser?.chromium ?? null,
  },
  lines,
};
writeFileSync(join(root, 'bench/results/summary.json'), JSON.stringify(summary, null, 2) + '\n');
console.log(`\nwrote bench/results/summary.json${failed.length ? `; FAILED: ${failed.join(', ')}` : ''}`);
if (failed.length) process.exitCode = 1;
