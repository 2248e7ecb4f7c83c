// `rema sft`: supervised fine-tuning (the paper's warm start before RL) of any supported model on chats, writing
// into --out
//   config.json    the ExperimentConfig whose model, finetune / LoRA and optimiser fields the run uses
//   sft.json       the SFT settings (data, epochs, batch, cutoff); a resumed run must match both files
//   metrics.jsonl  one line per optimiser step: step, epoch, loss (mean NLL per trained token), tokens, grad_norm, lr
//   checkpoints/   as `rema train`: atomic, the newest intact one resumed after a kill
//   model/         at the end: a model folder (config.json, model.safetensors, tokenizer files) that
//                  `rema train --set modelSource='"local"' --set model='"<out>/model"'` starts from; LoRA is merged
//   rema.lock      while it runs
// The loss covers every assistant message of a chat (src/rl/sft.ts); the learning-rate schedule's horizon is the
// run's optimiser steps.

import { mkdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { loadHfTokenizer } from '../data/hf-tokenizer.ts';
import { parseSftChats, type SftChat } from '../data/sft-chats.ts';
import { tinySftChats } from '../data/tiny-task/corpus.ts';
import { loadHfCheckpoint, serializeModelWeights } from '../engine/io/hf-model.ts';
import { validateConfig, type ExperimentConfig } from '../rl/config.ts';
import { policyForConfig } from '../rl/policy-setup.ts';
import { runSftSteps, sftExamplesOfFiles, sftStepCount, sftWeights, weightsChecksum } from '../rl/sft.ts';
import { getSftPreset, validateSftSettings, type SftPreset, type SftSettings } from '../rl/sft-presets.ts';
import { loadIntoPolicy, newestIntactCheckpoint, removeUnfinishedCheckpoints, saveCheckpoint } from './checkpoint.ts';
import { parseSetFlag } from './config-flags.ts';
import { intFlag } from './flags.ts';
import { appendNamed, replaceFile, writeNamed } from './run-files.ts';
import { sameRun } from './run-config.ts';
import { lockRunFolder } from './run-lock.ts';
import { prepareStepLog } from './run-logs.ts';
import { modelSource, openBackend, REPO_ROOT } from './setup.ts';
import { runtimeChoices, type RuntimeChoices } from './runtime-choices.ts';
import type { BackendKind } from '../engine/backend.ts';
import { withoutBom } from '../util/text.ts';

export interface SftFlags {
  preset?: string;
  set?: string[];
  steps?: string;
  seed?: string;
  data?: string[];
}

export interface SftRunOptions extends SftPreset {
  out: string;
  backend: BackendKind;
  /** --simd, --threads (default: runtimeChoices(), both 'auto') */
  runtime?: Pick<RuntimeChoices, 'simd' | 'threads'>;
  saveEvery?: number;
  progress?: 'lines' | 'none';
  /** stop after this many new steps in this process (tests use it to simulate a kill) */
  maxNewSteps?: number;
}

export interface SftMetrics {
  step: number;
  epoch: number;
  loss: number;
  tokens: number;
  examples: number;
  grad_norm: number;
  lr: number;
  applied: boolean;
  time_s: number;
}

export interface SftSummary {
  out: string;
  resumedFrom: number;
  steps: number;
  totalSteps: number;
  metrics: SftMetrics[];
  /** the model folder written at the end (absent when the run stopped early) */
  model?: string;
  /** the finished run's weights equal the base model's (every step skipped, or the learning rate 0) */
  unchanged?: boolean;
}

/** Model-folder files copied next to the trained weights (when the source has them). */
const MODEL_FILES = [
  'config.json',
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'chat_template.jinja',
];

/** `--preset` (an SFT preset), then `--set key=value` (config fields, or `sft.<key>` for the SFT settings), `--steps`, `--seed`, `--data FILE` (repeatable). */
export function sftFromFlags(flags: SftFlags): SftPreset {
  const run = getSftPreset(flags.preset ?? 'tiny-sft-meta');
  const overrides: Record<string, unknown> = {};
  const sft: Record<string, unknown> = { ...run.sft };
  const setKeys = new Set<string>();
  for (const s of flags.set ?? []) {
    const [k, v] = parseSetFlag(s);
    setKeys.add(k);
    if (k.startsWith('sft.')) {
      const key = k.slice(4);
      if (!Object.hasOwn(run.sft, key))
        throw new Error(
          `--set ${k}: unknown SFT setting "${key}"; settings: ${Object.keys(run.sft)
            .map((x) => `sft.${x}`)
            .join(', ')}`,
        );
      sft[key] = v;
    } else overrides[k] = v;
  }
  if (flags.steps !== undefined) overrides.steps = intFlag('--steps', flags.steps);
  if (flags.seed !== undefined) overrides.seed = intFlag('--seed', flags.seed);
  // `--set sft.files` without `sft.data` means the files, as `--data` does
  if (setKeys.has('sft.files') && !setKeys.has('sft.data')) sft.data = 'files';
  if (flags.data !== undefined && flags.data.length > 0) {
    sft.data = 'files';
    sft.files = flags.data;
  }
  const config = validateConfig(overrides, 'command line (--set / --steps / --seed)', run.config);
  return { config, sft: validateSftSettings(sft as unknown as SftSettings, 'command line (--set sft.* / --data)') };
}

/** The chats of a run: generated for the tiny task, else read from the files (file:line:field errors), each with
 *  the SHA-256 of its bytes (a resumed run must read the same contents). */
export async function loadSftChats(
  config: ExperimentConfig,
  sft: SftSettings,
): Promise<{ file: string; chats: SftChat[]; sha256?: string }[]> {
  if (sft.data !== 'files') {
    const kind = sft.data === 'tiny-meta' ? 'meta' : 'cot';
    const chats = tinySftChats(kind, { split: 'train', seed: config.seed, problems: sft.tinyProblems });
    return [{ file: sft.data, chats: chats.map((c, i) => ({ line: i + 1, messages: c.messages })) }];
  }
  const out: { file: string; chats: SftChat[]; sha256: string }[] = [];
  for (const f of sft.files) {
    const path = existsSync(f) || !existsSync(resolve(REPO_ROOT, f)) ? f : resolve(REPO_ROOT, f);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (e) {
      throw new Error(`${f}: cannot read the chat file (${(e as Error).message})`, { cause: e });
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    out.push({ file: f, chats: parseSftChats(withoutBom(bytes.toString('utf8')), f), sha256 });
  }
  return out;
}

/** What sft.json holds besides the settings: the SHA-256 of each chat file's bytes. */
const HASHES_KEY = 'data_sha256';

/** The same SFT settings, whatever their keys' order (the stored data hashes aside). */
const sameSettings = (a: SftSettings, b: SftSettings) => {
  const { [HASHES_KEY]: _a, ...x } = a as SftSettings & Record<string, unknown>;
  const { [HASHES_KEY]: _b, ...y } = b as SftSettings & Record<string, unknown>;
  return JSON.stringify(x, Object.keys(x).toSorted()) === JSON.stringify(y, Object.keys(y).toSorted());
};

/** A run folder holds one run: the config (as `rema train` compares it) and settings it started with must match.
 *  Returns the stored config and settings (null for a new folder). */
async function checkSameRun(
  files: { config: string; sft: string },
  config: ExperimentConfig,
  sft: SftSettings,
): Promise<{ config: ExperimentConfig; sft: Record<string, unknown> } | null> {
  if (!existsSync(files.config)) return null;
  const previous = JSON.parse(await readFile(files.config, 'utf8')) as ExperimentConfig;
  if (!sameRun(previous, config))
    throw new Error(
      `${files.config}: this folder holds an SFT run with a different config; use another --out (or the same config)`,
    );
  const before = existsSync(files.sft) ? (JSON.parse(await readFile(files.sft, 'utf8')) as SftSettings) : null;
  if (before === null || !sameSettings(before, sft))
    throw new Error(
      `${files.sft}: this folder holds an SFT run with different SFT settings; use another --out (or the same settings)`,
    );
  return { config: previous, sft: before as unknown as Record<string, unknown> };
}

/** A resumed run reads the chat files' contents it started with (a folder written before hashes were kept passes). */
function checkSameData(
  sftFile: string,
  stored: Record<string, unknown> | undefined,
  sets: { file: string; sha256?: string }[],
) {
  const hashes = stored?.[HASHES_KEY] as Record<string, string> | undefined;
  if (hashes === undefined) return;
  for (const { file, sha256 } of sets)
    if (sha256 !== undefined && hashes[file] !== undefined && hashes[file] !== sha256)
      throw new Error(
        `${file}: its contents changed since this SFT run started (SHA-256 ${sha256.slice(0, 12)}..., ${sftFile} holds ${hashes[file].slice(0, 12)}...); use another --out, or restore the file`,
      );
}

/** Optimiser steps of a run: `steps` when set (> 0) and below the epochs' steps, else the epochs' steps. */
const stepsOfRun = (steps: number, ofEpochs: number) => (steps > 0 ? Math.min(steps, ofEpochs) : ofEpochs);

export async function runSft(opts: SftRunOptions): Promise<SftSummary> {
  await mkdir(opts.out, { recursive: true });
  const release = await lockRunFolder(opts.out);
  try {
    return await sftLocked(opts);
  } finally {
    await release();
  }
}

async function sftLocked(opts: SftRunOptions): Promise<SftSummary> {
  const { config, sft, out } = opts;
  const saveEvery = opts.saveEvery ?? 50;
  const say = (line: string) => {
    if (opts.progress !== 'none') process.stderr.write(line + '\n');
  };
  const files = {
    config: join(out, 'config.json'),
    sft: join(out, 'sft.json'),
    metrics: join(out, 'metrics.jsonl'),
    checkpoints: join(out, 'checkpoints'),
    model: join(out, 'model'),
  };
  const previous = await checkSameRun(files, config, sft);

  // data first: a bad line is reported before a model is loaded
  const sets = await loadSftChats(config, sft);
  checkSameData(files.sft, previous?.sft, sets);
  const source = modelSource(config);
  const tokenizer = await loadHfTokenizer(source);
  const { examples, truncated, notes } = sftExamplesOfFiles(tokenizer, sets, sft.cutoff);
  for (const note of notes) say(note);
  if (examples.length === 0)
    throw new Error(
      `no chat to train on: every chat of ${sets.map((s) => s.file).join(', ')} is empty after the cutoff (${sft.cutoff} tokens)`,
    );
  const perEpoch = sftStepCount(examples.length, { batchSize: sft.batchSize, epochs: 1 });
  const totalSteps = stepsOfRun(config.steps, perEpoch * sft.epochs);
  await replaceFile(files.config, JSON.stringify(config, null, 2) + '\n');
  const hashes = Object.fromEntries(sets.flatMap((x) => (x.sha256 === undefined ? [] : [[x.file, x.sha256]])));
  const stored = Object.keys(hashes).length > 0 ? { ...sft, [HASHES_KEY]: hashes } : sft;
  await replaceFile(files.sft, JSON.stringify(stored, null, 2) + '\n');

  // 16-bit as stored: the policy's upload and the final merge widen per tensor (the merged file is float32 as before)
  const checkpoint = await loadHfCheckpoint(source, { keep16Bit: true });
  const backend = await openBackend(opts.backend, opts.runtime ?? runtimeChoices());
  // the schedule (cosine) runs over this run's optimiser steps
  const policy = policyForConfig(
    { ...config, steps: totalSteps, ppoEpochs: 1, miniBatches: 1 },
    { backend, checkpoint, decoder: tokenizer, baseModelName: config.model },
  );
  const adapter = policy.adapters[0];
  say(`backend: ${backend.description}`);
  say(
    `${examples.length} chats (${truncated} cut at ${sft.cutoff} tokens), ${sft.batchSize} per step, ${totalSteps} steps (${sft.epochs} epoch${sft.epochs > 1 ? 's' : ''} of ${perEpoch})`,
  );

  await removeUnfinishedCheckpoints(files.checkpoints);
  const found = await newestIntactCheckpoint(
    files.checkpoints,
    policy.adapters,
    (c) => loadIntoPolicy(c, policy),
    (l) => process.stderr.write(`rema: ${l}\n`),
  );
  let step = found ? found.ckpt.meta.trainer.step : 0;
  const resumedFrom = step;
  await prepareStepLog(files.metrics, step, found ? found.ckpt.path : '');
  if (resumedFrom > 0) say(`resumed from ${found!.ckpt.path} (step ${resumedFrom})`);
  const before = previous === null ? totalSteps : stepsOfRun(previous.config.steps, perEpoch * sft.epochs);
  if (resumedFrom > 0 && before !== totalSteps)
    process.stderr.write(
      `rema: the run's length changes from ${before} to ${totalSteps} steps (--steps): the cosine schedule now spans ${totalSteps} steps, so steps ${resumedFrom + 1}.. take other learning rates than the first ${resumedFrom} were planned with\n`,
    );

  const state = () => ({ version: 1 as const, step, cursor: 0, epoch: 0 });
  const schedule = { batchSize: sft.batchSize, epochs: sft.epochs, cutoff: sft.cutoff, seed: config.seed };
  const metrics: SftMetrics[] = [];
  step = await runSftSteps(
    policy,
    adapter,
    examples,
    schedule,
    { from: step, to: totalSteps },
    {
      stop: () => opts.maxNewSteps !== undefined && metrics.length >= opts.maxNewSteps,
      onStep: async (r) => {
        const m: SftMetrics = {
          step: r.step,
          epoch: r.epoch,
          loss: r.loss,
          tokens: r.tokens,
          examples: r.examples,
          grad_norm: r.gradNorm,
          lr: r.lr,
          applied: r.applied,
          time_s: r.time_s,
        };
        metrics.push(m);
        step = r.step;
        await appendNamed(files.metrics, JSON.stringify(m) + '\n');
        if (!r.applied)
          process.stderr.write(
            `warning: step ${r.step}: non-finite loss or gradients, the update was skipped (lower lr)\n`,
          );
        if (r.step % saveEvery === 0 || r.step === totalSteps)
          await saveCheckpoint(files.checkpoints, { state }, policy);
        say(
          `step ${r.step}/${totalSteps}: loss ${r.loss.toFixed(4)} (${r.tokens} tokens) grad_norm ${r.gradNorm.toFixed(3)} lr ${r.lr.toExponential(2)} (${m.time_s.toFixed(1)} s)`,
        );
      },
    },
  );
  const summary: SftSummary = { out, resumedFrom, steps: step, totalSteps, metrics };
  if (step < totalSteps) return summary;

  // the model folder: the source's config and tokenizer files, and the trained weights (LoRA merged into the base)
  const trained = await sftWeights(policy, adapter, checkpoint);
  const unchanged = weightsChecksum(trained) === weightsChecksum(checkpoint.weights);
  if (unchanged)
    process.stderr.write(
      `warning: the trained weights equal the base model's: no step changed them (lr ${config.lr}${metrics.some((m) => !m.applied) ? ', skipped updates' : ''}); ${files.model} is the base model\n`,
    );
  const weights = serializeModelWeights(trained);
  await mkdir(files.model, { recursive: true });
  for (const name of MODEL_FILES) {
    const bytes = await source.read(name);
    if (bytes !== null) await writeNamed(join(files.model, name), bytes);
  }
  await writeNamed(join(files.model, 'model.safetensors'), weights);
  say(`model: ${files.model} (train from it with --set modelSource='"local"' --set model='"${files.model}"')`);
  return { ...summary, model: files.model, ...(unchanged ? { unchanged } : {}) };
}
