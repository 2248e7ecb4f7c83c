// `rema train`: runs a config to its last step, writing into --out
//   config.json      the resolved config (a resumed run must match it, except `steps`)
//   metrics.jsonl    one MetricsRecord per step
//   rollouts.jsonl   every episode of every step (both agents' turns, reward, advantage)
//   eval.jsonl       every evaluation (step 0 when evalBeforeTrain, then every evalEvery steps), with per-level accuracy
//   explain.jsonl    with --explain: what each update did to one problem group (or every group), rl/train/explain.ts
//   checkpoints/     adapters + optimiser state + trainer state, written atomically after every saveEvery steps
//   frozen-agent.json with a frozen agent (config.frozenAgent, --frozen-model): which model runs it and on what; the
//                    frozen model itself is never saved, and a resumed run must name the same --frozen-model
//   rema.lock        while it runs: the process that holds the folder (a second `rema train` on it refuses)
// Restarted on the same --out after a kill, it resumes from the newest intact checkpoint (a damaged newer one is
// named and moved aside to checkpoints/damaged-step-N) and drops log lines written after it, so the finished
// files are what an uninterrupted run writes (the trainer is deterministic); logs that lost steps the checkpoint
// covers refuse the resume (./run-logs.ts).
// A step with NaN / infinite numbers prints a "warning: diverged at step N ..." line on stderr (also with
// --quiet); after config.maxNonFiniteSteps of them in a row the run stops with everything written and
// checkpointed so far, TrainSummary.stopped says why, and `rema train` exits with status 3.
// A lost GPU device (./device-lost.ts) ends the run with every completed step written and the newest checkpoint
// kept: `rema train` says so and exits with status 4; the same command resumes it (also with --backend wasm).
// Episodes that did not fit the model's context (metrics context_limited) print one warning for the first training
// step and one for the first evaluation where it happens; metrics.jsonl and eval.jsonl count them at every step.

import { mkdir, readFile, rename } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SingleBar } from 'cli-progress';
import type { AgentRole, ExperimentConfig } from '../rl/config.ts';
import { kvClampMessage, type MetricsRecord } from '../rl/metrics.ts';
import { contextMessage } from '../rl/train/context.ts';
import { divergenceMessage } from '../rl/train/divergence.ts';
import type { ExplainGroups } from '../rl/train/explain.ts';
import { createTrainer, type EvalResult } from '../rl/trainer.ts';
import { isDeviceLost } from '../engine/device-lost.ts';
import { deviceLostMessage, loseDeviceIfAsked } from './device-lost.ts';
import { nodeAnswerChecker } from './checker-node.ts';
import { trimExplainLog } from './explain-log.ts';
import {
  newestIntactCheckpoint,
  removeUnfinishedCheckpoints,
  restoreCheckpoint,
  saveCheckpoint,
} from './checkpoint.ts';
import { describeOnnxAgent, loadCliOnnxAgent, type CliOnnxAgent } from './onnx-agent.ts';
import { appendNamed, replaceFile } from './run-files.ts';
import { sameRun } from './run-config.ts';
import { lockRunFolder } from './run-lock.ts';
import { prepareLogs } from './run-logs.ts';
import { loadConfigProblems, loadModel } from './setup.ts';
import { runtimeChoices, type RuntimeChoices } from './runtime-choices.ts';
import type { BackendKind } from '../engine/backend.ts';

export interface TrainOptions {
  config: ExperimentConfig;
  out: string;
  backend: BackendKind;
  /** --simd, --threads, --weight-dtype, --data-dir (default: runtimeChoices(), every choice 'auto') */
  runtime?: RuntimeChoices;
  /** checkpoint every this many steps (and after the last) */
  saveEvery?: number;
  /** show a progress bar (stderr is a terminal) or print one line per step */
  progress?: 'bar' | 'lines' | 'none';
  /** stop after this many new steps in this process (tests use it to simulate a kill) */
  maxNewSteps?: number;
  /** the ONNX model (folder or hub repo id) that runs config.frozenAgent; required exactly when that is not "none" */
  frozenModel?: string;
  /** record "explain this step" for one problem group ('one') or every group ('all') in explain.jsonl; off by default
   *  (costs one extra scoring pass of the explained rows per step) */
  explain?: ExplainGroups;
}

/** What frozen-agent.json records about the frozen agent of a run. */
export interface FrozenAgentRecord {
  role: string;
  /** --frozen-model as given */
  model: string;
  source: string;
  modelFile: string;
  runtime: string;
}

export interface TrainSummary {
  out: string;
  resumedFrom: number;
  steps: number;
  metrics: MetricsRecord[];
  evals: EvalLine[];
  /** why the run stopped before config.steps (it diverged: StepResult.stop); absent when it ran to the end */
  stopped?: string;
  /** the run's own end before config.steps (Trainer.finished: Algorithm 1's updateIterations done) */
  finished?: string;
}

export interface EvalLine {
  step: number;
  accuracy: number;
  reward_mean: number;
  n: number;
  by_level: EvalResult['by_level'];
  time_s: number;
  /** episodes that did not fit the model's context, when some did (EvalResult.context_limited) */
  context_limited?: number;
  context_length?: number;
  context_prompt_tokens?: number;
}

function evalLine(e: EvalResult): EvalLine {
  const context = e.context_limited
    ? {
        context_limited: e.context_limited,
        context_length: e.context_length,
        context_prompt_tokens: e.context_prompt_tokens,
      }
    : {};
  return {
    step: e.step,
    accuracy: e.accuracy,
    reward_mean: e.reward_mean,
    n: e.n,
    by_level: e.by_level,
    time_s: e.time_s,
    ...context,
  };
}

async function readJsonl<T>(path: string): Promise<T[]> {
  if (!existsSync(path)) return [];
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** The frozen agent the config asks for, loaded from --frozen-model; a resumed run must name the model it started with. */
async function openFrozenAgent(
  config: ExperimentConfig,
  model: string | undefined,
  recordPath: string,
): Promise<CliOnnxAgent | null> {
  if (config.frozenAgent === 'none') {
    if (model !== undefined)
      throw new Error('--frozen-model needs --frozen-agent meta|reasoning (config.frozenAgent is "none")');
    return null;
  }
  if (model === undefined)
    throw new Error(
      `config.frozenAgent is "${config.frozenAgent}": give --frozen-model <folder|org/name> (an ONNX model in the onnx-community layout)`,
    );
  if (existsSync(recordPath)) {
    const recorded = JSON.parse(await readFile(recordPath, 'utf8')) as FrozenAgentRecord;
    if (recorded.model !== model)
      throw new Error(
        `${recordPath}: this run's frozen agent is "${recorded.model}", not "${model}"; resume with the same --frozen-model or use another --out`,
      );
  }
  const agent = await loadCliOnnxAgent(model);
  const record: FrozenAgentRecord = {
    role: config.frozenAgent,
    model,
    source: agent.source,
    modelFile: agent.modelFile,
    runtime: agent.runtime,
  };
  await replaceFile(recordPath, JSON.stringify(record, null, 2) + '\n');
  return agent;
}

/** What resuming had to repair is said whatever the progress mode. */
const notice = (line: string) => process.stderr.write(`rema: ${line}\n`);

/** Moves the damaged checkpoints newer than the one resumed from out of the way (kept, renamed damaged-step-N). */
async function setAside(damaged: string[], warn: (line: string) => void): Promise<void> {
  for (const folder of damaged) {
    let target = join(dirname(folder), `damaged-${basename(folder)}`);
    for (let i = 2; existsSync(target); i++) target = join(dirname(folder), `damaged-${basename(folder)}-${i}`);
    await rename(folder, target);
    warn(`moved the damaged checkpoint ${folder} to ${target}`);
  }
}

export async function runTrain(opts: TrainOptions): Promise<TrainSummary> {
  const saveEvery = opts.saveEvery ?? 1;
  if (!Number.isSafeInteger(saveEvery) || saveEvery < 1)
    throw new Error(`saveEvery must be a positive integer, got ${saveEvery}`);
  await mkdir(opts.out, { recursive: true });
  const release = await lockRunFolder(opts.out);
  const at: Progress = { done: 0, saved: 0 };
  try {
    return await trainLocked(opts, saveEvery, at);
  } catch (e) {
    // a lost GPU: every completed step is written and the newest checkpoint stays, so the run resumes
    if (isDeviceLost(e))
      throw new Error(deviceLostMessage(at.done + 1, opts.config.steps, at.saved, (e as Error).message), { cause: e });
    throw e;
  } finally {
    await release();
  }
}

/** How far a run got: its last completed step and the step of its newest checkpoint. */
interface Progress {
  done: number;
  saved: number;
}

async function trainLocked(opts: TrainOptions, saveEvery: number, at: Progress): Promise<TrainSummary> {
  const { config, out } = opts;
  const files = {
    config: join(out, 'config.json'),
    metrics: join(out, 'metrics.jsonl'),
    rollouts: join(out, 'rollouts.jsonl'),
    evals: join(out, 'eval.jsonl'),
    evalRollouts: join(out, 'eval_rollouts.jsonl'),
    explain: join(out, 'explain.jsonl'),
    checkpoints: join(out, 'checkpoints'),
    frozen: join(out, 'frozen-agent.json'),
  };
  if (existsSync(files.config)) {
    const previous = JSON.parse(await readFile(files.config, 'utf8')) as ExperimentConfig;
    if (!sameRun(previous, config))
      throw new Error(
        `${files.config}: this folder holds a run with a different config; use another --out (or the same config)`,
      );
  }
  // the problem sets first: a set that is not there is reported before a model loads or a file is written
  const runtime = opts.runtime ?? runtimeChoices();
  const problems = await loadConfigProblems(config, runtime);
  const frozen = await openFrozenAgent(config, opts.frozenModel, files.frozen);
  await replaceFile(files.config, JSON.stringify(config, null, 2) + '\n');

  const { policy, tokenizer, backend, weightsLine } = await loadModel(config, opts.backend, runtime);
  const progress = opts.progress ?? (process.stderr.isTTY ? 'bar' : 'lines');
  if (progress !== 'none') process.stderr.write(`backend: ${backend.description}\n${weightsLine}\n`);
  if (progress !== 'none' && frozen)
    process.stderr.write(`${describeOnnxAgent(`frozen ${config.frozenAgent} agent`, frozen)}\n`);
  let stage = '';
  const checker = nodeAnswerChecker();
  const trainer = createTrainer({
    config,
    policy,
    tokenizer,
    train: problems.train,
    eval: problems.eval,
    ...(frozen
      ? { frozen: { role: config.frozenAgent as AgentRole, policy: frozen.policy, tokenizer: frozen.tokenizer } }
      : {}),
    ...(opts.explain ? { explain: opts.explain } : {}),
    checker, // rewards graded in a worker thread with a hard limit per answer: no answer can stall the run
    onEvent: (e) => {
      if (e.type === 'stage') stage = e.stage;
    },
  });

  // this process holds the folder: a temporary checkpoint folder is what a killed or failed save left
  await removeUnfinishedCheckpoints(files.checkpoints);
  const found = await newestIntactCheckpoint(
    files.checkpoints,
    policy.adapters,
    (c) => restoreCheckpoint(c, trainer, policy),
    notice,
  );
  const resumedFrom = found ? found.ckpt.meta.trainer.step : 0;
  at.done = at.saved = resumedFrom;
  const evalAtStart = config.evalBeforeTrain && problems.eval.length > 0;
  await prepareLogs(
    { metrics: files.metrics, rollouts: files.rollouts, evals: files.evals, evalRollouts: files.evalRollouts },
    resumedFrom,
    found ? found.ckpt.path : '',
    evalAtStart,
  );
  if (found) await setAside(found.damaged, notice);
  await trimExplainLog(files.explain, resumedFrom);

  const warned = { step: false, eval: false, kv: false };
  const warnContext = (kind: 'step' | 'eval', f: EvalLine | MetricsRecord, total: number, where: string) => {
    if (!f.context_limited || warned[kind]) return;
    warned[kind] = true;
    warn(
      `warning: ${contextMessage(f, total, config.maxTokensPerTurn, where)} (counted at every ${kind === 'step' ? 'step in metrics.jsonl' : 'evaluation in eval.jsonl'}: context_limited)`,
    );
  };
  const writeEval = async (e: EvalResult) => {
    warnContext('eval', e, e.n, `evaluation at step ${e.step}`);
    await appendNamed(files.evals, JSON.stringify(evalLine(e)) + '\n');
    await appendNamed(files.evalRollouts, e.rollouts.map((r) => JSON.stringify(r)).join('\n') + '\n');
  };
  const bar =
    progress === 'bar'
      ? new SingleBar({
          format: ' {bar} {value}/{total} steps | reward {reward} | acc {acc} | eval {evalAcc} | {stage}',
          stream: process.stderr,
          hideCursor: true,
        })
      : null;
  // divergence is reported whatever the progress mode (it is not progress); above a progress bar on its own line
  const warn = (line: string) => process.stderr.write(`${bar ? '\n' : ''}${line}\n`);
  const say = (line: string) => {
    if (progress === 'lines') process.stderr.write(line + '\n');
  };
  let lastEval = '-';
  bar?.start(config.steps, resumedFrom, { reward: '-', acc: '-', evalAcc: '-', stage: '' });

  if (resumedFrom === 0 && evalAtStart) {
    const e = await trainer.evaluate();
    await writeEval(e);
    lastEval = e.accuracy.toFixed(3);
    say(`step 0: eval_accuracy ${lastEval} (${e.n} problems, ${e.time_s.toFixed(1)} s)`);
  }
  let stopped: string | undefined;
  let newSteps = 0;
  while (
    trainer.state().step < config.steps &&
    trainer.finished() === null &&
    (opts.maxNewSteps === undefined || newSteps < opts.maxNewSteps)
  ) {
    const ticker = bar ? setInterval(() => bar.update({ stage }), 500) : null;
    const r = await trainer.step();
    if (ticker) clearInterval(ticker);
    newSteps += 1;
    const m = r.metrics;
    await appendNamed(files.metrics, JSON.stringify(m) + '\n');
    await appendNamed(files.rollouts, r.rollouts.map((x) => JSON.stringify(x)).join('\n') + '\n');
    if (r.explain) await appendNamed(files.explain, JSON.stringify(r.explain) + '\n');
    if (r.eval) {
      await writeEval(r.eval);
      lastEval = r.eval.accuracy.toFixed(3);
    }
    at.done = m.step;
    const over = trainer.finished();
    if (m.step % saveEvery === 0 || m.step === config.steps || over !== null) {
      await saveCheckpoint(files.checkpoints, trainer, policy);
      at.saved = m.step;
    }
    if (over !== null) say(over);
    const t = Object.values(m.time_s).reduce((a, b) => a + b, 0);
    bar?.update(m.step, { reward: m.reward_mean.toFixed(3), acc: m.accuracy.toFixed(3), evalAcc: lastEval, stage: '' });
    say(
      `step ${m.step}/${config.steps}: reward ${m.reward_mean.toFixed(3)} acc ${m.accuracy.toFixed(3)}` +
        `${m.eval_accuracy !== undefined ? ` eval_accuracy ${m.eval_accuracy.toFixed(3)}` : ''} turns ${m.turns_mean.toFixed(2)} (${t.toFixed(1)} s)`,
    );
    warnContext('step', m, r.rollouts.length, `step ${m.step}`);
    if (m.nonfinite) warn(`warning: ${divergenceMessage(m, config)}`);
    if (m.kv_cache_clamped && !warned.kv) {
      warned.kv = true;
      warn(
        `warning: ${kvClampMessage(m.kv_cache_clamped, `step ${m.step}`)} (counted in metrics.jsonl: kv_cache_clamped)`,
      );
    }
    if (r.stop) {
      stopped = r.stop;
      break;
    }
    loseDeviceIfAsked(backend, m.step);
  }
  bar?.stop();
  const finished = trainer.finished();
  policy.dispose();
  backend.destroy(); // a sweep runs many trainings in one process: stop the wasm backend's helper thread
  checker.close();
  return {
    out,
    resumedFrom,
    steps: trainer.state().step,
    metrics: await readJsonl<MetricsRecord>(files.metrics),
    evals: await readJsonl<EvalLine>(files.evals),
    ...(stopped !== undefined ? { stopped } : {}),
    ...(finished !== null ? { finished } : {}),
  };
}
