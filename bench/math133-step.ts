// What one `math133` training step costs on this CPU, split by stage, so bench/README.md can say what an ablation
// costs before anyone runs one. The model has SmolLM2-135M-Instruct's exact shape (the catalog's config.json:
// 30 layers, 576 hidden, vocab 49152) with random weights made here; the tokenizer is the repository's SmolLM2
// fixture (tests/fixtures/hf/tiny-smollm2-instruct: the real chat template, a small byte-level vocabulary, so
// prompts count more tokens than SmolLM2's own tokenizer would give). The step is the real trainer's step of the
// math133-smollm360m preset (multi-turn ReMA, code prompts, 8 problems x G 8, 3 rounds of <= 256 tokens, LoRA,
// 4 mini-batches) on the wasm backend; no held-out evaluation (the run is 1000 steps long so the measured steps
// are not its last, which evaluates). Stages: the trainer's own times (rollout, reward,
// old + ref log-probs = scoring, update), the update split into backward (gradient chunks) and optimiser (AdamW
// steps) by timing the policy's two calls.
// When the config does not fit WebAssembly's 4 GiB on this model (before the preset set decodeBatch, the planner
// said 8.8 GiB: 64 sequences decoded together with prompts up to 1536 tokens), the planner's nearest config that
// fits is applied; by default 4 problems per step instead of 8: the fixture's byte-level prompts are longer than
// the planner's estimate (a suggestion alone ran out of the WASM heap here), and on 2 shared cores a full step takes hours. The 8-problem
// step is then computed from the measured one (each stage x 8, no batching gain assumed); `--set key=JSON`
// overrides any field (--set problemsPerStep=8 measures the preset's).
//   node --experimental-wasm-relaxed-simd --import tsx bench/math133-step.ts [--steps N] [--threads 1|2] [--set problemsPerStep=8]
//   -> prints the figures, writes bench/results/math133-step.json
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { directoryFileSource } from '../src/cli/fs-source.ts';
import { spawnNodeWasmHelper } from '../src/cli/wasm-helper-node.ts';
import { loadHfTokenizer } from '../src/data/hf-tokenizer.ts';
import { findCatalogModel } from '../src/data/models/catalog.ts';
import { WasmBackend } from '../src/engine/backends/wasm.ts';
import { parseHfConfig } from '../src/engine/io/hf-config.ts';
import type { ModelConfig, ModelWeights } from '../src/engine/model/config.ts';
import { expectedParameterShapes } from '../src/engine/model/params.ts';
import type { EnginePolicy } from '../src/engine/policy/engine-policy.ts';
import { validateConfig } from '../src/rl/config.ts';
import { policyForConfig } from '../src/rl/policy-setup.ts';
import { getPreset } from '../src/rl/presets.ts';
import { planConfig, stepShape, WASM_LIMIT_BYTES } from '../src/rl/plan.ts';
import { problemsForConfig } from '../src/rl/problems.ts';
import { createTrainer } from '../src/rl/trainer.ts';
import { Rng } from '../src/util/rng.ts';

const root = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const flag = (name: string, fallback: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const STEPS = Number(flag('--steps', '1'));
const THREADS = Number(flag('--threads', '2')) as 1 | 2;
if (!Number.isInteger(STEPS) || STEPS < 1)
  throw new Error(`--steps: "${flag('--steps', '')}" is not a whole number >= 1`);
if (THREADS !== 1 && THREADS !== 2) throw new Error('--threads: 1 or 2');

/** Seeded random weights initialised like the golden script (linear N(0, 1/fan_in), embeddings N(0, 1), norms 1 + 0.1 N). */
function randomWeights(config: ModelConfig, seed: number): ModelWeights {
  const rng = new Rng(seed);
  const weights: ModelWeights = new Map();
  for (const [name, shape] of expectedParameterShapes(config)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    const isNorm = name.endsWith('norm.weight');
    const std =
      isNorm || name.endsWith('.bias') ? 0.1 : name === 'model.embed_tokens.weight' ? 1 : 1 / Math.sqrt(shape[1]);
    for (let i = 0; i < n; i++) data[i] = (isNorm ? 1 : 0) + std * rng.normal();
    weights.set(name, { shape: [...shape], data });
  }
  return weights;
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const load = () => loadavg().map(r2);

const entry = findCatalogModel('smollm2-135m-instruct');
if (!entry) throw new Error('the model catalog has no smollm2-135m-instruct');
const modelConfig = parseHfConfig(entry.config, `catalog ${entry.name}`);
// Random weights never end a message and never answer right: with the preset's stopWhenTruncated and
// maskUnfinishedReward every episode would end (untrained) at its first cut message, and filterGroups would drop
// every zero-spread group, leaving no backward to time. Off here, every episode runs all its rounds to the token
// limit and trains (with zero advantages: the same compute): the step is an upper bound of a real one.
const overrides: Record<string, unknown> = {
  problemsPerStep: 1,
  filterGroups: false,
  stopWhenTruncated: false,
  maskUnfinishedReward: false,
};
argv.forEach((a, i) => {
  if (a !== '--set') return;
  const [k, ...v] = (argv[i + 1] ?? '').split('=');
  try {
    overrides[k] = JSON.parse(v.join('='));
  } catch {
    overrides[k] = v.join('=');
  }
});
const preset = validateConfig(
  { evalEvery: 0, evalBeforeTrain: false, steps: 1000, model: entry.repo, ...overrides },
  'bench config',
  getPreset('math133-smollm360m'),
);
// the preset as it is does not fit WebAssembly's 4 GiB on this model (64 sequences x 1.5k-token prompts): the
// planner's nearest config that fits is what runs, and the output says which
const presetPlan = planConfig(preset, { config: modelConfig, name: entry.repo }, { backend: 'wasm' });
const suggestion = presetPlan.fits ? null : presetPlan.suggestion;
if (!presetPlan.fits && !suggestion)
  throw new Error(
    `the preset does not fit ${WASM_LIMIT_BYTES} bytes and the planner has no suggestion: ${presetPlan.note}`,
  );
const config = suggestion ? validateConfig(suggestion.set, 'planner suggestion', preset) : preset;
const plan = planConfig(config, { config: modelConfig, name: entry.repo }, { backend: 'wasm' });
console.log(
  `preset planned peak ${(presetPlan.bytes.total / 2 ** 30).toFixed(2)} GiB${suggestion ? `: does not fit, running the planner's suggestion ${suggestion.flags}` : ''}; planned peak ${(plan.bytes.total / 2 ** 30).toFixed(2)} GiB`,
);
const loadBefore = load();
const t0 = performance.now();
const weights = randomWeights(modelConfig, 1);
const tokenizer = await loadHfTokenizer(directoryFileSource(join(root, 'tests/fixtures/hf/tiny-smollm2-instruct')));
const backend = await WasmBackend.create({ threads: THREADS, spawnHelper: spawnNodeWasmHelper });
const policy: EnginePolicy = policyForConfig(config, {
  backend,
  checkpoint: { config: modelConfig, weights },
  decoder: tokenizer,
});
const { train, eval: heldOut } = await problemsForConfig(config, {
  shipped: directoryFileSource(join(root, 'public/data'), 'public/data'),
});
const setup_s = (performance.now() - t0) / 1000;

// backward vs optimiser inside the trainer's update stage: time the policy's own two calls
let backward = 0;
let optimizer = 0;
const timed =
  <A extends unknown[], R>(fn: (...a: A) => Promise<R>, add: (s: number) => void) =>
  async (...a: A): Promise<R> => {
    const s = performance.now();
    try {
      return await fn(...a);
    } finally {
      add((performance.now() - s) / 1000);
    }
  };
const accumulate = policy.accumulateGradients.bind(policy);
const step = policy.optimizerStep.bind(policy);
policy.accumulateGradients = timed(accumulate, (s) => (backward += s));
policy.optimizerStep = timed(step, (s) => (optimizer += s));

let lastLog = 0;
/** Wall seconds of one awaited call. */
async function time(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return (performance.now() - t) / 1000;
}

/**
 * The update's parts timed on the engine directly at the step's shape (the planner's stepShape: rows per gradient
 * chunk x tokens per row), scaled to the step: scoring (old log-probs) = chunks x one score pass, backward =
 * chunks x epochs x one gradient chunk, optimiser = mini-batches x epochs x adapters x one AdamW step. Used when
 * the trainer's step trained no row (random weights: see above), so the update still has a figure.
 */
async function timeUpdateParts() {
  const shape = stepShape(config, modelConfig, 'f32');
  const adapter = policy.adapters[0];
  const rowsPerStep = config.problemsPerStep * config.groupSize * (config.paramMode === 'separate' ? 1 : 2);
  const chunks = Math.ceil(rowsPerStep / shape.gradient.sequences);
  const trained = Math.max(1, Math.floor(shape.gradient.selected / shape.gradient.sequences));
  const rows = Array.from({ length: shape.gradient.sequences }, (_, r) => ({
    tokens: Array.from(
      { length: shape.gradient.tokens },
      (_x, i) => 3 + ((r * 11 + i * 3) % (modelConfig.vocabSize - 3)),
    ),
    positions: Array.from({ length: trained }, (_x, i) => shape.gradient.tokens - trained + i),
    adapter,
    coef: new Float32Array(trained).fill(1e-3),
  }));
  const score1 = await time(() => policy.score(rows));
  const grad1 = await time(() => accumulate(rows));
  const opt1 = await time(() => step(adapter));
  policy.zeroGrad(adapter);
  const epochs = config.ppoEpochs;
  return {
    how: `one chunk of ${shape.gradient.sequences} rows x ${shape.gradient.tokens} tokens (${trained} trained each), ${chunks} chunks per step, ${epochs} epoch(s), ${config.miniBatches} mini-batches`,
    score_chunk_s: r2(score1),
    gradient_chunk_s: r2(grad1),
    optimizer_step_s: r2(opt1),
    scoring_s: r2(chunks * score1 * (config.klBeta > 0 ? 2 : 1)),
    backward_s: r2(chunks * epochs * grad1),
    optimizer_s: r2(config.miniBatches * epochs * policy.adapters.length * opt1),
  };
}

const trainer = createTrainer({
  config,
  policy,
  tokenizer,
  train,
  eval: heldOut,
  onEvent: (e) => {
    if (e.type === 'progress' && performance.now() - lastLog < 30_000) return;
    lastLog = performance.now();
    console.log(
      `  ${((performance.now() - t0) / 1000).toFixed(0)} s: ${e.type === 'progress' ? `${e.stage} ${e.done}/${e.total}${e.tokens !== undefined ? ` (${e.tokens} tokens this turn)` : ''}` : e.type === 'stage' ? e.stage : e.message}`,
    );
  },
});
const steps = [];
for (let i = 0; i < STEPS; i++) {
  backward = 0;
  optimizer = 0;
  const s = performance.now();
  const cpu0 = process.cpuUsage();
  const r = await trainer.step();
  const step_s = (performance.now() - s) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const t = r.metrics.time_s;
  const row = {
    step_s: r2(step_s),
    /** CPU seconds of this process (main thread + the wasm helper thread) during the step */
    cpu_s: r2((cpu.user + cpu.system) / 1e6),
    stages_s: {
      rollout: r2(t.rollout),
      reward: r2(t.reward),
      scoring: r2(t.old + t.ref),
      backward: r2(backward),
      optimizer: r2(optimizer),
      other: r2(step_s - t.rollout - t.reward - t.old - t.ref - backward - optimizer),
    },
    trainer_time_s: Object.fromEntries(Object.entries(t).map(([k, v]) => [k, r2(v)])),
    tokens_trained: r.metrics.tokens_trained ?? null,
    rows_trained: r.metrics.rows_trained ?? null,
    len_meta_mean: r2(r.metrics.len_meta_mean),
    len_reason_mean: r2(r.metrics.len_reason_mean),
    turns_mean: r2(r.metrics.turns_mean),
  };
  steps.push(row);
  console.log(`step ${i + 1}: ${row.step_s} s ${JSON.stringify(row.stages_s)}`);
}
const cpuU = process.cpuUsage();
const tU = performance.now();
const update = steps.some((x) => x.rows_trained === 0) ? await timeUpdateParts() : null;
const updateCpu = process.cpuUsage(cpuU);
if (update) console.log(`update parts timed directly (the step trained no row): ${JSON.stringify(update)}`);
const updateWall = (performance.now() - tU) / 1000;
const updateS = update ? update.scoring_s + update.backward_s + update.optimizer_s : 0;
/** CPU seconds of the directly timed update parts, scaled like their wall time */
const updateCpuS = update && updateWall > 0 ? ((updateCpu.user + updateCpu.system) / 1e6) * (updateS / updateWall) : 0;
const loadAfter = load();
const stepS = steps.reduce((a, b) => a + b.step_s, 0) / steps.length + updateS;
const cpuS = steps.reduce((a, b) => a + b.cpu_s, 0) / steps.length + updateCpuS;
/** the preset's 8 problems per step from the measured step: every stage scales with the problems (upper bound:
 *  no gain from decoding 64 sequences together instead of 8) */
const scale = 8 / config.problemsPerStep;
const presetStepS = stepS * scale;
/** on an idle machine the step takes about its CPU time over the threads (2) */
const idleStepS = (cpuS / THREADS) * scale;
const ablation = { configs: 2, seeds: 3, steps: 50 };
const ablationRuns = ablation.configs * ablation.seeds;
const ablationHours = (ablationRuns * ablation.steps * presetStepS) / 3600;
const ablationIdleHours = (ablationRuns * ablation.steps * idleStepS) / 3600;
const result = {
  date: new Date().toISOString(),
  machine: {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    load_average_before: loadBefore,
    load_average_after: loadAfter,
  },
  model: `${entry.repo} shape, random weights (${modelConfig.numLayers} layers, hidden ${modelConfig.hiddenSize}, vocab ${modelConfig.vocabSize})`,
  tokenizer: 'tests/fixtures/hf/tiny-smollm2-instruct (SmolLM2 chat template, byte-level vocabulary)',
  backend: backend.description,
  preset: `math133-smollm360m (model: the 135M shape), evalEvery 0, ${JSON.stringify(overrides)}`,
  planner: {
    preset_peak_bytes: presetPlan.bytes.total,
    fits_wasm: presetPlan.fits,
    applied: suggestion?.flags ?? null,
    planned_peak_bytes: plan.bytes.total,
  },
  shape: {
    problems: config.problemsPerStep,
    group: config.groupSize,
    maxTurns: config.maxTurns,
    maxTokensPerTurn: config.maxTokensPerTurn,
    miniBatches: config.miniBatches,
    lora: `r${config.loraRank} ${config.loraTargets.join(',')}`,
  },
  setup_s: r2(setup_s),
  steps,
  update_parts: update,
  step_s: r2(stepS),
  cpu_s: r2(cpuS),
  preset_step_s: {
    measured_load: r2(presetStepS),
    idle_machine: r2(idleStepS),
    how: `measured step x ${scale} (8 problems / ${config.problemsPerStep}); idle: CPU seconds / ${THREADS} threads x ${scale}`,
  },
  peak_bytes: backend.ledger().peakBytes,
  ablation_estimate: {
    ...ablation,
    runs: ablationRuns,
    hours: r2(ablationHours),
    hours_idle_machine: r2(ablationIdleHours),
    how: `${ablationRuns} runs x ${ablation.steps} steps x ${r2(presetStepS)} s (the 8-problem step computed from the measured one); idle: x ${r2(idleStepS)} s; no held-out evaluation counted`,
  },
};
policy.dispose();
backend.destroy();
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/math133-step.json'), JSON.stringify(result, null, 2) + '\n');
console.log(
  `setup ${result.setup_s} s; step ${result.step_s} s on ${result.backend}; peak ${(result.peak_bytes / 2 ** 20).toFixed(0)} MiB`,
);
console.log(
  `load average (1, 5, 15 min) before ${loadBefore.join(' ')}, after ${loadAfter.join(' ')} (${result.machine.cores} cores, shared)`,
);
console.log(
  `CPU ${result.cpu_s} s for the step; the preset's 8-problem step: ${r2(presetStepS)} s at this load, ~${r2(idleStepS)} s on an idle machine (computed)`,
);
console.log(
  `ablation 2 configs x 3 seeds x 50 steps: ${ablationRuns * ablation.steps} steps x ${r2(presetStepS)} s = ${result.ablation_estimate.hours} h at this load, ~${result.ablation_estimate.hours_idle_machine} h idle (computed)`,
);
console.log('wrote bench/results/math133-step.json');
process.exit(0);
