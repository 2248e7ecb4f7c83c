// Part of `npm run bench` (bench/run.ts): the same GRPO step on our trainer and on Hugging Face TRL's GRPOTrainer
// (PyTorch CPU, 2 threads), the two sides alternated step by step in one run (scripts/trl/bench_trl.py holds TRL's
// trainer and steps when told). Workloads:
//   vrp-rl tiny      the vrp-rl preset on public/models/tiny-rema, 8 problems x G 8, 64 new tokens, T 1, LoRA r8 on
//                    all projections, one mini-batch; its REINFORCE++ / KL-in-reward algorithm replaced by what TRL
//                    has: GRPO advantages (eps 1e-4), token-mean loss (dapo), k3 KL in the loss (beta 0.01)
//   smollm2-shape    the same on a random model of SmolLM2-135M-Instruct's shape (scripts/trl/bench_trl.py
//                    --make-random, under bench/results/tmp/models/) with the vocabulary of the tokenizer both use,
//                    tests/fixtures/hf/tiny-smollm2-instruct's (V 323 instead of 49152: both train the sampled ids,
//                    but ids that tokenizer cannot decode would have no text to grade),
//                    1 problem x G 8 (3 steps by default: one warm-up, two measured; --steps N for more)
// TRL runs with the settings trlSettings gives for our config (src/rl/trl-settings.ts; what it cannot match is
// printed). Ours runs on the WASM backend with 2 threads and the answer checker `rema train` uses. Per workload:
// the first step of each side warms up, then the median step time of the rest, the ratio TRL / ours (above 1: ours
// is faster), the stages, and the trained completion tokens per step of both sides (they must agree within 5%: the
// same workload).
//   node --experimental-wasm-relaxed-simd --import tsx bench/trl.ts [--quick] [--steps N] [--workloads tiny,smollm2]
//     [--torch-threads N]   (default 2, OMP_WAIT_POLICY=PASSIVE)
//   -> bench/results/trl.json; skipped (the JSON says why) where scripts/trl/.venv lacks TRL (python3 scripts/trl/trl_env.py)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { datasetsFor } from '../src/app/worker/run-setup.ts';
import { nodeAnswerChecker } from '../src/cli/checker-node.ts';
import { directoryFileSource } from '../src/cli/fs-source.ts';
import { spawnNodeWasmHelper } from '../src/cli/wasm-helper-node.ts';
import { loadHfTokenizer } from '../src/data/hf-tokenizer.ts';
import { findCatalogModel } from '../src/data/models/catalog.ts';
import { WasmBackend } from '../src/engine/backends/wasm.ts';
import { loadHfCheckpoint } from '../src/engine/io/hf-model.ts';
import type { ExperimentConfig } from '../src/rl/config.ts';
import { policyForConfig } from '../src/rl/policy-setup.ts';
import { getPreset } from '../src/rl/presets.ts';
import { promptsFor } from '../src/rl/prompts/index.ts';
import { createTrainer } from '../src/rl/trainer.ts';
import { TRL_ADV_EPS, trlSettings } from '../src/rl/trl-settings.ts';

const root = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const flag = (name: string, fallback: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const quick = argv.includes('--quick');
const PYTHON = join(root, 'scripts/trl/.venv/bin/python');
const SCRIPT = join(root, 'scripts/trl/bench_trl.py');
const THREADS = 2;
const TORCH_THREADS = Number(flag('--torch-threads', String(THREADS)));
const TOKEN_TOLERANCE = 0.05;

interface Workload {
  name: string;
  dir: string;
  config: ExperimentConfig;
  steps: number;
}

/** The vrp-rl preset with the algorithm TRL has (see the header), `problems` x G 8, no evaluation. */
function comparable(problems: number): ExperimentConfig {
  return {
    ...getPreset('vrp-rl'),
    problemsPerStep: problems,
    groupSize: 8,
    advantage: 'grpo',
    advEps: TRL_ADV_EPS,
    klPlacement: 'loss',
    klEstimator: 'k3',
    regularizerMean: 'aggregation',
    dualClip: null,
    // PyTorch keeps every activation for the backward (TRL's default: no gradient checkpointing); so do we
    activationBudgetMiB: 2048,
    steps: 1000,
    evalEvery: 1000,
    evalBeforeTrain: false,
  };
}

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, d = 3) => +x.toFixed(d);

function pythonReady(): string | null {
  if (!existsSync(PYTHON))
    return `no ${PYTHON} (python3 scripts/trl/trl_env.py installs TRL, PyTorch, transformers, peft)`;
  const r = spawnSync(PYTHON, ['-c', 'import torch, trl, transformers, peft'], { encoding: 'utf8' });
  return r.status === 0 ? null : `the TRL environment does not import: ${r.stderr.trim().split('\n').at(-1)}`;
}

function smollm2Folder(): string {
  const dir = join(root, 'bench/results/tmp/models/smollm2-135m-shape-v323-eos');
  if (existsSync(join(dir, 'model.safetensors'))) return dir;
  const entry = findCatalogModel('smollm2-135m-instruct');
  if (!entry) throw new Error('bench trl: smollm2-135m-instruct is not in the model catalog');
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, 'catalog-config.json');
  writeFileSync(configPath, JSON.stringify(entry.config));
  const tokenizer = join(root, 'tests/fixtures/hf/tiny-smollm2-instruct');
  const r = spawnSync(PYTHON, [SCRIPT, '--make-random', dir, '--config', configPath, '--tokenizer', tokenizer], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`bench trl: making the random SmolLM2-shaped model failed (exit ${r.status})`);
  return dir;
}

/** TRL's trainer in a child process, one optimiser step per `step()` call. */
function trlTrainer(setup: Record<string, unknown>) {
  const child = spawn(PYTHON, [SCRIPT], {
    stdio: ['pipe', 'pipe', 'inherit'],
    // passive waits: on a shared machine, 2 OpenMP threads spinning for each other turned a 1 s generate of the tiny
    // model into 26-51 s (load average 20); passive took 2.6-3.9 s
    env: {
      ...process.env,
      OMP_NUM_THREADS: String(TORCH_THREADS),
      OMP_WAIT_POLICY: 'PASSIVE',
      TOKENIZERS_PARALLELISM: 'false',
    },
  });
  const lines = createInterface({ input: child.stdout });
  const waiting: Array<(line: string) => void> = [];
  lines.on('line', (line) => {
    if (line.startsWith('TRL-BENCH ')) waiting.shift()?.(line.slice('TRL-BENCH '.length));
  });
  child.stdin.write(`${JSON.stringify(setup)}\n`);
  return {
    step: () =>
      new Promise<{ step_s: number; tokens: number; stages_s: Record<string, number> }>((done, fail) => {
        child.once('exit', (code) => fail(new Error(`TRL exited (${code}) before finishing a step`)));
        waiting.push((json) => done(JSON.parse(json)));
        child.stdin.write('step\n');
      }),
    close: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

async function runWorkload(w: Workload) {
  const { config } = w;
  const settings = trlSettings(config);
  for (const u of settings.unmatched) console.log(`  ${w.name}: not matched in TRL: ${u}`);
  const source = directoryFileSource(w.dir);
  const tokenizer = await loadHfTokenizer(source);
  const checkpoint = await loadHfCheckpoint(source);
  const backend = await WasmBackend.create({ threads: THREADS, spawnHelper: spawnNodeWasmHelper });
  const { train, eval: heldOut } = datasetsFor(config);
  const policy = policyForConfig(config, { backend, checkpoint, decoder: tokenizer });
  // the answer checker `rema train` uses (a worker thread)
  const checker = nodeAnswerChecker();
  const trainer = createTrainer({ config, policy, tokenizer, train, eval: heldOut, checker });
  const prompts = promptsFor(config.prompts, config.mode, 'math');
  const trl = trlTrainer({
    model_dir: w.dir,
    grpo_config: settings.grpoConfig,
    lora_config: settings.loraConfig,
    prompts: train.map((p) => [
      { role: 'system', content: prompts.singleSystem },
      { role: 'user', content: prompts.singleUser(p.question, p) },
    ]),
    answers: train.map((p) => p.answer),
    threads: TORCH_THREADS,
    steps: w.steps,
  });
  type Step = { step_s: number; tokens: number; stages_s: Record<string, number>; context_limited?: number };
  const ours: Step[] = [];
  const theirs: Step[] = [];
  try {
    for (let i = 0; i < w.steps; i++) {
      const t0 = performance.now();
      const r = await trainer.step();
      const s = (performance.now() - t0) / 1000;
      const { rollout, reward, old, ref, adv, update } = r.metrics.time_s;
      ours.push({
        step_s: s,
        tokens: r.metrics.tokens_trained ?? Number.NaN,
        context_limited: r.metrics.context_limited ?? 0,
        stages_s: { rollout, reward, old, ref, adv, update },
      });
      theirs.push(await trl.step());
      console.log(
        `  ${w.name} step ${i + 1}/${w.steps}: ours ${s.toFixed(2)} s (${ours[i].tokens} tokens), TRL ${theirs[i].step_s.toFixed(2)} s (${theirs[i].tokens} tokens)${i === 0 ? ' [warm-up]' : ''}`,
      );
    }
  } finally {
    trl.close();
    checker.close();
    policy.dispose();
    backend.destroy();
  }
  const measured = (xs: Step[]) => xs.slice(1);
  const summary = (xs: Step[]) => ({
    median_step_s: round(median(measured(xs).map((x) => x.step_s))),
    steps_s: xs.map((x) => round(x.step_s)),
    mean_tokens: round(measured(xs).reduce((a, x) => a + x.tokens, 0) / measured(xs).length, 1),
    median_stages_s: Object.fromEntries(
      Object.keys(xs[0].stages_s).map((k) => [k, round(median(measured(xs).map((x) => x.stages_s[k])))]),
    ),
  });
  const a = summary(ours);
  const b = summary(theirs);
  const tokenRatio = a.mean_tokens / b.mean_tokens;
  return {
    workload: w.name,
    model_dir: w.dir.replace(`${root}/`, ''),
    problems: config.problemsPerStep,
    group: config.groupSize,
    max_new_tokens: config.maxTokensPerTurn,
    trl_settings: settings,
    ours: { backend: backend.description, context_limited: ours.map((x) => x.context_limited), ...a },
    trl: { threads: TORCH_THREADS, omp_wait_policy: 'PASSIVE', ...b },
    tokens_ratio: round(tokenRatio),
    tokens_match: Math.abs(tokenRatio - 1) <= TOKEN_TOLERANCE,
    speed_ratio_ours_vs_trl: round(b.median_step_s / a.median_step_s),
  };
}

const resultsDir = join(root, 'bench/results');
mkdirSync(resultsDir, { recursive: true });
const out = join(resultsDir, 'trl.json');
const missing = pythonReady();
if (missing) {
  console.log(`trl: skipped: ${missing}`);
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), skipped: missing }, null, 2) + '\n');
} else {
  const wanted = flag('--workloads', quick ? 'tiny' : 'tiny,smollm2').split(',');
  const steps = Number(flag('--steps', '0'));
  const workloads: Workload[] = [];
  if (wanted.includes('tiny'))
    workloads.push({
      name: 'vrp-rl tiny-rema 8x8',
      dir: join(root, 'public/models/tiny-rema'),
      config: comparable(8),
      steps: steps || (quick ? 3 : 6),
    });
  if (wanted.includes('smollm2'))
    workloads.push({
      name: 'SmolLM2-135M shape (random) 1x8',
      dir: smollm2Folder(),
      // the fixture tokenizer is byte-level: the prompts take several times vrp-rl's 240 tokens
      config: { ...comparable(1), maxPromptTokens: 1024 },
      // two measured steps: the trained tokens of one step of 8 random completions vary by several percent
      steps: steps || 3,
    });
  const loadBefore = loadavg();
  const results = [];
  for (const w of workloads) {
    const r = await runWorkload(w);
    console.log(
      `trl: ${r.workload}: ours ${r.ours.median_step_s} s vs TRL ${r.trl.median_step_s} s per step: ours ${r.speed_ratio_ours_vs_trl}x TRL's speed; tokens per step ${r.ours.mean_tokens} vs ${r.trl.mean_tokens} (${r.tokens_match ? 'match' : 'DIFFER by more than 5%'})`,
    );
    results.push(r);
  }
  const versions = spawnSync(
    PYTHON,
    [
      '-c',
      'import json, torch, trl, transformers, peft; print(json.dumps({m.__name__: m.__version__ for m in (torch, trl, transformers, peft)}))',
    ],
    { encoding: 'utf8' },
  ).stdout.trim();
  writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        versions: JSON.parse(versions),
        load_average: { before: loadBefore, after: loadavg() },
        results,
      },
      null,
      2,
    ) + '\n',
  );
  console.log('wrote bench/results/trl.json');
  if (results.some((r) => !r.tokens_match)) process.exitCode = 1;
}
