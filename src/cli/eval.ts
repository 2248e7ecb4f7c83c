// `rema eval`: greedy pass@1 of a config's protocol and model (optionally with a training checkpoint's adapters)
// on named benchmarks (the shipped sets, the downloaded ones in --data-dir, the tiny tasks) or users' JSONL files, with a
// progress bar; prints a table and writes a JSON summary plus every transcript when --out is given.
// With --onnx an ONNX model (onnx-community layout) is the policy of every role instead of an engine model (the VRP
// baseline of any ONNX model: --preset vrp --onnx ...); with --frozen-model it plays the config's frozen agent.
// Every input is checked before a model loads: the benchmarks and problem files (errors name file:line), that
// --out can be written, and that a --checkpoint was trained under this config (model, finetune, paramMode, LoRA
// shape: a mismatch would evaluate the base model). Each benchmark's result is reported before its files are written.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { DATA_DIR_DATASETS, isDataDirDataset, loadProblems, SHIPPED_DATASETS } from '../data/datasets.ts';
import type { Problem } from '../data/problem.ts';
import { tinyArithProblems, tinyJudgeProblems } from '../data/tiny-task/dataset.ts';
import type { ExperimentConfig } from '../rl/config.ts';
import type { RolloutRecord } from '../rl/metrics.ts';
import { adapterNames } from '../rl/policy-setup.ts';
import { subset, TINY_DATA_SEED, TINY_DEFAULT_HELDOUT } from '../rl/problems.ts';
import type { Policy } from '../engine/policy/policy.ts';
import type { ChatTokenizer } from '../data/tokenizer.ts';
import { contextMessage, type ContextFields } from '../rl/train/context.ts';
import { createEvaluator, type FrozenAgentOptions } from '../rl/trainer.ts';
import { nodeAnswerChecker } from './checker-node.ts';
import {
  checkAdapters,
  loadIntoPolicy,
  newestIntactCheckpoint,
  readCheckpoint,
  type LoadedCheckpoint,
} from './checkpoint.ts';
import { directoryFileSource } from './fs-source.ts';
import { describeOnnxAgent, loadCliOnnxAgent } from './onnx-agent.ts';
import { writeNamed } from './run-files.ts';
import { dataDirSource } from './data-dir.ts';
import { loadModel, PUBLIC_DATA, userFile } from './setup.ts';
import { runtimeChoices, type RuntimeChoices } from './runtime-choices.ts';
import type { BackendKind } from '../engine/backend.ts';
import { readText } from './read-text.ts';

export const BENCHMARKS = [
  ...new Set([...Object.keys(SHIPPED_DATASETS), ...Object.keys(DATA_DIR_DATASETS), 'tiny-arith', 'tiny-judge']),
];

export interface EvalOptions {
  config: ExperimentConfig;
  backend: BackendKind;
  /** --simd, --threads, --weight-dtype, --data-dir (default: runtimeChoices(), every choice 'auto') */
  runtime?: RuntimeChoices;
  benchmarks: string[];
  files: string[];
  /** at most this many problems per benchmark (a seeded subset); 0 = all */
  limit: number;
  /** a run folder (its checkpoints/latest) or a checkpoint folder whose adapters to load */
  checkpoint?: string;
  out?: string;
  progress?: boolean;
  /** problems evaluated per batch */
  chunk?: number;
  /** an ONNX model (folder or hub repo id) that plays every role instead of the config's engine model */
  onnx?: string;
  /** the ONNX model that plays config.frozenAgent (the other agent is the config's engine model) */
  frozenModel?: string;
  /** where to say what runs the models (backend, ONNX runtime and execution provider) */
  log?: (line: string) => void;
  /** where to say that a damaged checkpoint was skipped (default: stderr, whatever `log` is) */
  warn?: (line: string) => void;
  /** called with each benchmark's result as soon as it is known, before its files are written */
  onResult?: (result: BenchmarkResult) => void;
}

interface EvalPolicy {
  policy: Policy;
  /** the adapters that act (the engine model's); none for an ONNX model */
  adapters: readonly string[];
  tokenizer: ChatTokenizer;
  frozen?: FrozenAgentOptions;
  config: ExperimentConfig;
  dispose(): void;
}

/** The policies an evaluation runs: an ONNX model for every role, or the engine model (+ a frozen ONNX agent). */
async function evalPolicies(
  opts: EvalOptions,
  ckpt: LoadedCheckpoint | null,
  say: (line: string) => void,
): Promise<EvalPolicy> {
  const { config } = opts;
  if (opts.onnx !== undefined) {
    if (opts.frozenModel !== undefined)
      throw new Error('--onnx already runs every role; --frozen-model does not apply');
    const agent = await loadCliOnnxAgent(opts.onnx);
    say(describeOnnxAgent('policy (every role)', agent));
    // one model for both roles: the shared-parameter protocol, no frozen partner
    return {
      policy: agent.policy,
      adapters: [],
      tokenizer: agent.tokenizer,
      config: { ...config, paramMode: 'shared', frozenAgent: 'none' },
      dispose: () => {},
    };
  }
  if (config.frozenAgent !== 'none' && opts.frozenModel === undefined)
    throw new Error(`config.frozenAgent is "${config.frozenAgent}": give --frozen-model <folder|org/name>`);
  if (config.frozenAgent === 'none' && opts.frozenModel !== undefined)
    throw new Error('--frozen-model needs --frozen-agent meta|reasoning (config.frozenAgent is "none")');
  const { policy, tokenizer, backend, weightsLine } = await loadModel(
    config,
    opts.backend,
    opts.runtime ?? runtimeChoices(),
  );
  say(`backend: ${backend.description}`);
  say(weightsLine);
  if (ckpt) await loadIntoPolicy(ckpt, policy);
  let frozen: FrozenAgentOptions | undefined;
  if (config.frozenAgent !== 'none') {
    const agent = await loadCliOnnxAgent(opts.frozenModel!);
    say(describeOnnxAgent(`frozen ${config.frozenAgent} agent`, agent));
    frozen = { role: config.frozenAgent, policy: agent.policy, tokenizer: agent.tokenizer };
  }
  return {
    policy,
    adapters: policy.adapters,
    tokenizer,
    config,
    ...(frozen ? { frozen } : {}),
    dispose: () => {
      policy.dispose();
      backend.destroy(); // stops the wasm backend's helper thread
    },
  };
}

export interface BenchmarkResult {
  benchmark: string;
  n: number;
  accuracy: number;
  by_level: Record<string, { n: number; accuracy: number }>;
  time_s: number;
}

async function benchmarkProblems(name: string, dataDir: string | undefined): Promise<Problem[]> {
  if (name === 'tiny-arith')
    return tinyArithProblems({ split: 'heldout', count: TINY_DEFAULT_HELDOUT, seed: TINY_DATA_SEED });
  if (name === 'tiny-judge')
    return tinyJudgeProblems({ split: 'heldout', count: TINY_DEFAULT_HELDOUT, seed: TINY_DATA_SEED });
  if (Object.hasOwn(SHIPPED_DATASETS, name))
    return loadProblems(
      directoryFileSource(PUBLIC_DATA, 'public/data'),
      SHIPPED_DATASETS[name as keyof typeof SHIPPED_DATASETS],
    );
  if (isDataDirDataset(name)) return loadProblems(dataDirSource([name], dataDir)!, DATA_DIR_DATASETS[name].file);
  throw new Error(`unknown benchmark "${name}"; known: ${BENCHMARKS.join(', ')} (or pass --file F.jsonl)`);
}

/** Fields that shape the trained parameters: a checkpoint evaluated under other values would load into nothing. */
const RUN_FIELDS = ['modelSource', 'model', 'finetune', 'paramMode'] as const;
const LORA_FIELDS = ['loraRank', 'loraAlpha', 'loraTargets'] as const;

const show = (v: unknown) => JSON.stringify(v);

/** Refuses a checkpoint whose run (its config.json) trained other parameters than `config` describes. */
async function checkRunConfig(runDir: string, config: ExperimentConfig, given: string): Promise<void> {
  const file = join(runDir, 'config.json');
  if (!existsSync(file)) return;
  let run: Record<string, unknown>;
  try {
    run = JSON.parse(await readText(file)) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${file}: cannot read the run's config (${(e as Error).message})`, { cause: e });
  }
  const fields: readonly (keyof ExperimentConfig)[] = [
    ...RUN_FIELDS,
    ...(run.finetune === 'lora' && config.finetune === 'lora' ? LORA_FIELDS : []),
  ];
  const diffs = fields
    .filter((f) => f in run && show(run[f]) !== show(config[f]))
    .map((f) => `${f} is ${show(run[f])} in ${file} but ${show(config[f])} here`);
  if (diffs.length > 0)
    throw new Error(
      `--checkpoint ${given}: the checkpoint does not match this evaluation's config: ${diffs.join('; ')} (evaluate it under the run's config: --config ${file})`,
    );
}

/** The checkpoint --checkpoint names (a run folder: its newest intact checkpoint; or one checkpoint folder), read and checked. */
async function evalCheckpoint(
  given: string,
  config: ExperimentConfig,
  warn: (line: string) => void,
): Promise<LoadedCheckpoint> {
  const adapters = adapterNames(config);
  if (existsSync(join(given, 'checkpoints'))) {
    await checkRunConfig(given, config, given);
    const found = await newestIntactCheckpoint(join(given, 'checkpoints'), adapters, async () => {}, warn, {
      withOptimizers: false,
    });
    if (!found)
      throw new Error(
        `--checkpoint ${given}: the run has no checkpoint yet (${join(given, 'checkpoints')} holds none)`,
      );
    return found.ckpt;
  }
  if (existsSync(join(given, 'state.json'))) {
    await checkRunConfig(dirname(dirname(given)), config, given);
    const ckpt = await readCheckpoint(given, false);
    checkAdapters(ckpt, adapters);
    return ckpt;
  }
  throw new Error(
    `--checkpoint ${given}: neither a run folder (with checkpoints/) nor a checkpoint folder (with state.json)`,
  );
}

/** --out must be a folder this process can write to: checked before the evaluation spends any time. */
async function checkWritable(dir: string): Promise<void> {
  const probe = join(dir, `.rema-write-check-${process.pid}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, '');
    await rm(probe, { force: true });
  } catch (e) {
    throw new Error(`--out ${dir}: cannot write there (${(e as Error).message})`, { cause: e });
  }
}

export async function runEval(opts: EvalOptions): Promise<BenchmarkResult[]> {
  const { config } = opts;
  const warn = opts.warn ?? ((line: string) => process.stderr.write(`rema: ${line}\n`));
  // every input is read and checked before a model loads
  const sets: { name: string; problems: Problem[] }[] = [];
  for (const b of opts.benchmarks) sets.push({ name: b, problems: await benchmarkProblems(b, opts.runtime?.dataDir) });
  for (const f of opts.files) {
    const { source, path } = userFile(f);
    sets.push({ name: basename(f).replace(/\.jsonl$/, ''), problems: await loadProblems(source, path) });
  }
  if (sets.length === 0) throw new Error('nothing to evaluate: give --benchmarks or --file');
  if (opts.out) await checkWritable(opts.out);
  if (opts.checkpoint && opts.onnx !== undefined)
    throw new Error('--onnx evaluates an ONNX model as it is: it has no adapters to load from --checkpoint');
  const ckpt = opts.checkpoint ? await evalCheckpoint(opts.checkpoint, config, warn) : null;
  const run = await evalPolicies(opts, ckpt, opts.log ?? (() => {}));
  const chunk = opts.chunk ?? 32;
  const results: BenchmarkResult[] = [];
  const checker = nodeAnswerChecker(); // answers graded in a worker thread with a hard limit per answer
  try {
    for (const set of sets) {
      const problems = subset(set.problems, opts.limit, 2);
      const bar = opts.progress
        ? new SingleBar({ format: ` ${set.name} {bar} {value}/{total} | acc {acc}`, stream: process.stderr })
        : null;
      bar?.start(problems.length, 0, { acc: '-' });
      const t0 = Date.now();
      let correct = 0;
      const levels: Record<string, { n: number; correct: number }> = {};
      const transcripts: RolloutRecord[] = [];
      // episodes the model's context cut, over the benchmark's chunks (train/context.ts)
      const context: Required<ContextFields> = { context_limited: 0, context_length: 0, context_prompt_tokens: 0 };
      for (let i = 0; i < problems.length; i += chunk) {
        const part = problems.slice(i, i + chunk);
        const trainer = createEvaluator({
          config: { ...run.config, evalSize: 0 },
          policy: run.policy,
          adapters: run.adapters,
          tokenizer: run.tokenizer,
          ...(run.frozen ? { frozen: run.frozen } : {}),
          train: part,
          eval: part,
          checker,
        });
        const r = await trainer.evaluate();
        if (r.context_limited) {
          context.context_limited += r.context_limited;
          context.context_length = r.context_length ?? 0;
          context.context_prompt_tokens = Math.max(context.context_prompt_tokens, r.context_prompt_tokens ?? 0);
        }
        r.rollouts.forEach((roll, j) => {
          const level = part[j].level ?? 'all';
          const l = (levels[level] ??= { n: 0, correct: 0 });
          l.n += 1;
          if (roll.correct) {
            l.correct += 1;
            correct += 1;
          }
          transcripts.push({ ...roll, group: i + j });
        });
        bar?.update(Math.min(i + chunk, problems.length), {
          acc: (correct / Math.min(i + chunk, problems.length)).toFixed(3),
        });
      }
      bar?.stop();
      // said whatever the progress mode: those episodes score 0 for a reason the accuracy alone does not show
      if (context.context_limited > 0)
        process.stderr.write(
          `warning: ${contextMessage(context, problems.length, run.config.maxTokensPerTurn, set.name)}\n`,
        );
      const by_level = Object.fromEntries(
        Object.entries(levels).map(([k, v]) => [k, { n: v.n, accuracy: v.correct / v.n }]),
      );
      const res = {
        benchmark: set.name,
        n: problems.length,
        accuracy: problems.length > 0 ? correct / problems.length : 0,
        by_level,
        time_s: (Date.now() - t0) / 1000,
      };
      results.push(res);
      opts.onResult?.(res);
      if (opts.out)
        await writeNamed(
          join(opts.out, `${set.name}_rollouts.jsonl`),
          transcripts.map((t) => JSON.stringify(t)).join('\n') + '\n',
        );
    }
  } finally {
    run.dispose();
    checker.close();
  }
  if (opts.out)
    await writeNamed(
      join(opts.out, 'eval_summary.json'),
      JSON.stringify({ config: config.name, results }, null, 2) + '\n',
    );
  return results;
}
