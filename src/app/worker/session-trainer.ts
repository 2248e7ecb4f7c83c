// Building the session's trainer from the loaded model and a config (with the frozen ONNX agent when the config
// asks for one, and the config's problems), and the ONNX model itself, kept loaded per source and execution
// provider by onnx-slot.ts. A trainer that cannot be built leaves the running one in place.
import { validateConfig, type ExperimentConfig } from '../../rl/config.ts';
import { policyForConfig } from '../../rl/policy-setup.ts';
import { problemsForConfig } from '../../rl/problems.ts';
import { createEvaluator, createTrainer, type TrainerEvent } from '../../rl/trainer.ts';
import { httpFolderSource } from '../model/file-sources.ts';
import type { PageOnnxAgent } from './onnx-agent.ts';
import { loadOrtWeb } from './onnx-runtime.ts';
import type { OnnxEvaluation } from './protocol.ts';
import type { Busy } from './session-jobs.ts';
import { modelLabel } from './model-label.ts';
import { sourceFor } from './session-model.ts';
import type { ActiveRun, SessionState } from './session-state.ts';

/** The status line's text for work inside a stage: "eval 12/128 episodes done (381 tokens this turn)", "update 3/8". */
export function progressLine(e: Extract<TrainerEvent, { type: 'progress' }>): string {
  return e.tokens === undefined
    ? `${e.stage} ${e.done}/${e.total}`
    : `${e.stage} ${e.done}/${e.total} episodes done (${e.tokens} tokens this turn)`;
}

/** The trainer's stage, progress and notice events as the page's activity line. */
export function activityLines(s: SessionState): (e: TrainerEvent) => void {
  return (e) => {
    if (e.type === 'stage') s.emit({ type: 'activity', step: e.step, text: e.stage });
    else if (e.type === 'progress') s.emit({ type: 'activity', step: e.step, text: progressLine(e) });
    else s.emit({ type: 'activity', step: e.step, text: e.message });
  };
}

function datasetName(config: ExperimentConfig): string {
  return config.trainSet === config.evalSet ? config.trainSet : `${config.trainSet} / ${config.evalSet}`;
}

function shippedData(s: SessionState) {
  return { shipped: httpFolderSource(s.env.dataUrl, 'public/data') };
}

/** The ONNX model of s.onnxModel on the EP that matches the page's backend, loaded unless it already is. */
export function ensureOnnx(s: SessionState, busy: Busy): Promise<PageOnnxAgent> {
  const spec = s.onnxModel;
  return s.onnx.get({
    spec,
    ep: s.loaded?.backendInfo.kind === 'webgpu' ? 'webgpu' : 'wasm',
    source: sourceFor(spec, s.env.modelsUrl),
    name: modelLabel(spec),
    loadOrt: s.env.loadOrt ?? loadOrtWeb,
    // a download can take a while: the page shows its byte progress while the status is "loading"
    onLoadStart: () => busy('loading'),
    onProgress: (file, loadedBytes, total) =>
      s.emit({ type: 'progress', part: 'ONNX model', file, loaded: loadedBytes, total }),
    inUse: (policy) => policy === s.active?.frozen?.policy,
  });
}

/** Tells the page the frozen agent of the current trainer and the ONNX model the session holds. */
export function emitFrozen(s: SessionState): void {
  const role = s.active && s.active.config.frozenAgent !== 'none' ? s.active.config.frozenAgent : null;
  s.emit({ type: 'frozen', role, onnx: s.onnx.model?.info ?? null });
}

/** A trainer for `config` on the loaded model; the old trainer's policy (and an ONNX session only it held) is freed. */
export async function buildTrainer(s: SessionState, config: ExperimentConfig, busy: Busy): Promise<ActiveRun> {
  const loaded = s.loaded;
  if (!loaded) throw new Error('no model is loaded');
  // the ONNX agent first: when it fails, the trainer that runs now stays
  const frozenAgent = config.frozenAgent === 'none' ? null : (await ensureOnnx(s, busy)).agent;
  // the problems too (a set the page cannot open, e.g. trainSet "file", fails here and the running trainer stays)
  const { train, eval: heldOut } = await problemsForConfig(config, shippedData(s));
  s.active?.policy.dispose();
  // an ONNX session only the old trainer held (its model was replaced in ensureOnnx) is freed with it
  const oldFrozen = s.active?.frozen?.policy;
  if (oldFrozen && oldFrozen !== s.onnx.model?.agent.policy) await oldFrozen.dispose();
  s.active = null;
  const policy = policyForConfig(config, {
    backend: loaded.backend,
    checkpoint: loaded.checkpoint,
    decoder: loaded.tokenizer,
    baseModelName: loaded.model.name,
    baseDtype: loaded.baseDtype,
  });
  const frozen =
    frozenAgent && config.frozenAgent !== 'none'
      ? {
          role: config.frozenAgent,
          policy: frozenAgent.policy,
          tokenizer: frozenAgent.tokenizer,
          maxContext: frozenAgent.config.maxPositionEmbeddings,
        }
      : undefined;
  const checker = s.env.checker ? { checker: s.env.checker } : {};
  // the page records "Explain this step" for one group per step (an extra scoring pass of that group)
  const trainer = createTrainer({
    config,
    policy,
    tokenizer: loaded.tokenizer,
    train,
    eval: heldOut,
    onEvent: activityLines(s),
    frozen,
    ...checker,
    explain: 'one',
  });
  return {
    config,
    policy,
    frozen,
    trainer,
    dataset: { name: datasetName(config), train: train.length, heldOut: heldOut.length },
    heldOut,
  };
}

/** VRP baseline: the ONNX model alone answers the held-out problems (plain chain of thought, greedy). */
export async function evaluateOnnx(s: SessionState, rawConfig: ExperimentConfig, busy: Busy): Promise<OnnxEvaluation> {
  const { agent, info } = await ensureOnnx(s, busy);
  emitFrozen(s);
  busy('evaluating');
  const config = validateConfig(
    { ...rawConfig, mode: 'vrp', maxTurns: 1, steps: 0, frozenAgent: 'none', paramMode: 'shared' },
    'ONNX evaluation config',
    undefined,
  );
  const { train, eval: heldOut } = await problemsForConfig(config, shippedData(s));
  const evaluator = createEvaluator({
    config,
    policy: agent.policy,
    adapters: [],
    tokenizer: agent.tokenizer,
    train,
    eval: heldOut,
    onEvent: activityLines(s),
    maxContext: agent.config.maxPositionEmbeddings,
    ...(s.env.checker ? { checker: s.env.checker } : {}),
  });
  const r = await evaluator.evaluate();
  return { onnx: info, mode: 'vrp', accuracy: r.accuracy, reward_mean: r.reward_mean, n: r.n, rollouts: r.rollouts };
}
