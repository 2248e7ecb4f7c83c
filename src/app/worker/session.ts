// The training session behind the worker protocol: loads a model onto the chosen backend, builds the real
// engine policy and the real RL trainer, and runs steps on request (Train = back to back until Pause, Step =
// one). Every command that touches the policy runs through one queue, so an intervention or an adapter export
// waits for the current step instead of racing it. Runs in the Web Worker (trainer.worker.ts) or in-process.
// An ONNX model (onnxruntime-web) can stand in for one agent (config.frozenAgent: it answers, never trains) or be
// evaluated alone as a VRP baseline; onnx-slot.ts keeps it loaded per source and execution provider.
import type { ChatTokenizer } from '../../data/tokenizer.ts';
import { loadHfTokenizer } from '../../data/hf-tokenizer.ts';
import type { Backend } from '../../engine/backend.ts';
import type { EnginePolicy } from '../../engine/policy/engine-policy.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../engine/io/hf-model.ts';
import { validateConfig, type ExperimentConfig } from '../../rl/config.ts';
import { createEvaluator, createTrainer, type EvalResult, type FrozenAgentOptions, type Trainer, type TrainerEvent } from '../../rl/trainer.ts';
import type { FileSource } from '../../util/file-source.ts';
import { hubFileSource } from '../../engine/io/hub.ts';
import { indexedDbHubStore } from '../../engine/io/hub-idb-store.ts';
import { httpFolderSource, localFilesSource } from '../model/file-sources.ts';
import { selectBackend } from './backend-select.ts';
import { followGreedy } from './follow.ts';
import { followPlan } from './intervention.ts';
import type { PageOnnxAgent } from './onnx-agent.ts';
import { OnnxModelSlot } from './onnx-slot.ts';
import { DEFAULT_ONNX_SPEC } from './onnx-default.ts';
import { loadOrtWeb, type OrtLoader } from './onnx-runtime.ts';
import { throttlePhases } from './phase-throttle.ts';
import type {
  BackendInfo, BackendPreference, DatasetInfo, ModelInfo, ModelSpec, OnnxModelSpec, SessionStatus, WorkerEvent, WorkerRequest,
} from './protocol.ts';
import type { Problem } from '../../data/problem.ts';
import { problemsForConfig } from '../../rl/problems.ts';
import { policyForConfig } from '../../rl/policy-setup.ts';
import type { AnswerChecker } from '../../rl/verifier/checker.ts';

export interface SessionEnv {
  /** navigator.gpu of the thread the session runs in (undefined without WebGPU) */
  gpu: GPU | undefined;
  /** URL of the folder holding the embedded models, e.g. "http://127.0.0.1:4173/models/" */
  modelsUrl: string;
  /** URL of the shipped datasets (public/data) */
  dataUrl: string;
  /** onnxruntime for ONNX models; default onnxruntime-web (tests inject onnxruntime-node) */
  loadOrt?: OrtLoader;
  /** grades answers for every trainer (the page: a Web Worker with a hard limit per check, checker-web.ts); default in-thread */
  checker?: AnswerChecker;
}


interface Loaded {
  backend: Backend;
  backendInfo: BackendInfo;
  checkpoint: HfCheckpoint;
  tokenizer: ChatTokenizer;
  model: ModelInfo;
}

interface Active {
  config: ExperimentConfig;
  policy: EnginePolicy;
  /** the ONNX agent that never trains (config.frozenAgent), as the trainer got it */
  frozen: FrozenAgentOptions | undefined;
  trainer: Trainer;
  dataset: DatasetInfo;
  /** the held-out problems (the followed problem is one of them) */
  heldOut: Problem[];
}

function datasetName(config: ExperimentConfig): string {
  return config.trainSet === config.evalSet ? config.trainSet : `${config.trainSet} / ${config.evalSet}`;
}

function sourceFor(spec: ModelSpec, modelsUrl: string): FileSource {
  switch (spec.kind) {
    case 'embedded':
      return httpFolderSource(`${modelsUrl}${spec.name}`, spec.name);
    case 'hf':
      // files are kept in IndexedDB, so a second load of the same repo needs no network
      return hubFileSource({ repo: spec.repo, revision: spec.revision, store: indexedDbHubStore() });
    case 'local':
      return localFilesSource(spec.files, `local: ${spec.name}`);
  }
}

function modelName(spec: ModelSpec): string {
  return spec.kind === 'hf' ? `hf://${spec.repo}` : spec.kind === 'local' ? `local: ${spec.name}` : spec.name;
}

/** The status line's text for work inside a phase: "eval 12/128 episodes done (381 tokens this turn)", "update 3/8". */
export function progressLine(e: Extract<TrainerEvent, { type: 'progress' }>): string {
  return e.tokens === undefined ? `${e.phase} ${e.done}/${e.total}` : `${e.phase} ${e.done}/${e.total} episodes done (${e.tokens} tokens this turn)`;
}

export function createSession(post: (e: WorkerEvent) => void, env: SessionEnv): (request: WorkerRequest) => void {
  const emit = throttlePhases(post);
  let loaded: Loaded | null = null;
  let active: Active | null = null;
  /** where the ONNX model comes from (the latest load / reset / loadOnnx request says) */
  let onnxSpec: OnnxModelSpec = DEFAULT_ONNX_SPEC;
  const onnx = new OnnxModelSlot();
  let wantTraining = false;
  /** the followed held-out problem (-1: the default) and how often its greedy rollout is refreshed (steps) */
  let follow = { index: -1, every: 5 };
  let queue: Promise<unknown> = Promise.resolve();
  /** bumps on every load, so work queued for an older model is dropped */
  let generation = 0;

  const status = (s: SessionStatus) => emit({ type: 'status', status: s });
  const fail = (e: unknown, fatal: boolean, requestId: number | null = null) => {
    const message = e instanceof Error ? e.message : String(e);
    emit({ type: 'error', message, fatal, requestId });
    if (fatal) status('failed');
  };
  /**
   * Run `job` after everything queued before it; errors are reported, never thrown into the queue. Each job
   * first yields to the event loop: a CPU-backend step awaits only settled promises, so without this yield the
   * worker would never read an incoming Pause or intervention message between steps.
   */
  const enqueue = (job: () => Promise<void>, onError: (e: unknown) => void) => {
    const mine = generation;
    queue = queue.then(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (mine !== generation) return;
      try {
        await job();
      } catch (e) {
        onError(e);
      }
    });
  };

  const onTrainerEvent = (e: TrainerEvent) => {
    if (e.type === 'phase') emit({ type: 'phase', step: e.step, phase: e.phase });
    else if (e.type === 'progress') emit({ type: 'phase', step: e.step, phase: progressLine(e) });
    else emit({ type: 'phase', step: e.step, phase: e.message });
  };

  /** The ONNX model of onnxSpec on the EP that matches the page's backend, loaded unless it already is. */
  function ensureOnnx(): Promise<PageOnnxAgent> {
    const spec = onnxSpec;
    return onnx.get({
      spec,
      ep: loaded?.backendInfo.kind === 'webgpu' ? 'webgpu' : 'wasm',
      source: sourceFor(spec, env.modelsUrl),
      name: modelName(spec),
      loadOrt: env.loadOrt ?? loadOrtWeb,
      // a download can take a while: the page shows its byte progress while the status is "loading"
      onLoadStart: () => status('loading'),
      onProgress: (file, loadedBytes, total) => emit({ type: 'progress', stage: 'ONNX model', file, loaded: loadedBytes, total }),
      inUse: (policy) => policy === active?.frozen?.policy,
    });
  }

  function emitFrozen(): void {
    const role = active && active.config.frozenAgent !== 'none' ? active.config.frozenAgent : null;
    emit({ type: 'frozen', role, onnx: onnx.model?.info ?? null });
  }

  async function buildTrainer(config: ExperimentConfig): Promise<Active> {
    if (!loaded) throw new Error('no model is loaded');
    // the ONNX agent first: when it fails, the trainer that runs now stays
    const frozenAgent = config.frozenAgent === 'none' ? null : (await ensureOnnx()).agent;
    // the problems too (a set the page cannot open, e.g. trainSet "file", fails here and the running trainer stays)
    const { train, eval: heldOut } = await problemsForConfig(config, { shipped: httpFolderSource(env.dataUrl, 'public/data') });
    active?.policy.dispose();
    // an ONNX session only the old trainer held (its model was replaced in ensureOnnx) is freed with it
    const oldFrozen = active?.frozen?.policy;
    if (oldFrozen && oldFrozen !== onnx.model?.agent.policy) await oldFrozen.dispose();
    active = null;
    const policy = policyForConfig(config, { backend: loaded.backend, checkpoint: loaded.checkpoint, decoder: loaded.tokenizer, baseModelName: loaded.model.name });
    const frozen =
      frozenAgent && config.frozenAgent !== 'none'
        ? { role: config.frozenAgent, policy: frozenAgent.policy, tokenizer: frozenAgent.tokenizer, maxContext: frozenAgent.config.maxPositionEmbeddings }
        : undefined;
    const trainer = createTrainer({ config, policy, tokenizer: loaded.tokenizer, train, eval: heldOut, onEvent: onTrainerEvent, frozen, ...(env.checker ? { checker: env.checker } : {}) });
    return { config, policy, frozen, trainer, dataset: { name: datasetName(config), train: train.length, heldOut: heldOut.length }, heldOut };
  }

  async function load(spec: ModelSpec, preference: BackendPreference, rawConfig: ExperimentConfig): Promise<void> {
    status('loading');
    active?.policy.dispose();
    active = null;
    loaded?.backend.destroy();
    loaded = null;
    const config = validateConfig(rawConfig, 'config', undefined);
    const { backend, info } = await selectBackend(preference, env.gpu);
    emit({ type: 'backend', backend: info });
    const source = sourceFor(spec, env.modelsUrl);
    let tokenizer: ChatTokenizer;
    let checkpoint: HfCheckpoint;
    try {
      emit({ type: 'progress', stage: 'tokenizer', file: 'tokenizer.json', loaded: 0, total: null });
      tokenizer = await loadHfTokenizer(source);
      checkpoint = await loadHfCheckpoint(source, {
        onProgress: (p) => emit({ type: 'progress', stage: `weights (${p.filesDone}/${p.filesTotal} files)`, file: p.file, loaded: p.loadedBytes, total: p.totalBytes }),
      });
    } catch (e) {
      backend.destroy();
      const missing = /not found/.test((e as Error).message)
        ? '\nA model folder needs config.json, model.safetensors (or model.safetensors.index.json and its shards), tokenizer.json and tokenizer_config.json (a Llama or Qwen2 checkpoint in Hugging Face layout).'
        : '';
      throw new Error(`could not load the model "${modelName(spec)}": ${(e as Error).message}${missing}`, { cause: e });
    }
    let parameters = 0;
    for (const t of checkpoint.weights.values()) parameters += t.data.length;
    const c = checkpoint.config;
    const model: ModelInfo = {
      name: modelName(spec),
      architecture: c.architecture,
      parameters,
      layers: c.numLayers,
      hiddenSize: c.hiddenSize,
      vocabSize: c.vocabSize,
    };
    loaded = { backend, backendInfo: info, checkpoint, tokenizer, model };
    active = await buildTrainer(config);
    emit({ type: 'ready', backend: info, model, dataset: active.dataset });
    emitFrozen();
    status('idle');
  }

  /** VRP baseline: the ONNX model alone answers the held-out problems (plain chain of thought, greedy). */
  async function evaluateOnnx(rawConfig: ExperimentConfig): Promise<void> {
    const { agent, info } = await ensureOnnx();
    emitFrozen();
    status('evaluating');
    const config = validateConfig({ ...rawConfig, mode: 'vrp', maxTurns: 1, steps: 0, frozenAgent: 'none', paramMode: 'shared' }, 'ONNX evaluation config', undefined);
    const { train, eval: heldOut } = await problemsForConfig(config, { shipped: httpFolderSource(env.dataUrl, 'public/data') });
    const trainer = createEvaluator({
      config,
      policy: agent.policy,
      adapters: [],
      tokenizer: agent.tokenizer,
      train,
      eval: heldOut,
      onEvent: onTrainerEvent,
      maxContext: agent.config.maxPositionEmbeddings,
      ...(env.checker ? { checker: env.checker } : {}),
    });
    const r = await trainer.evaluate();
    emit({ type: 'onnxEvaluation', result: { onnx: info, mode: 'vrp', accuracy: r.accuracy, reward_mean: r.reward_mean, n: r.n, rollouts: r.rollouts } });
  }

  function emitEvaluation(r: EvalResult): void {
    const context = r.context_limited ? { context_limited: r.context_limited, context_length: r.context_length, context_prompt_tokens: r.context_prompt_tokens } : {};
    emit({ type: 'evaluation', step: r.step, accuracy: r.accuracy, reward_mean: r.reward_mean, n: r.n, rollouts: r.rollouts, ...context });
  }

  /** The followed problem's greedy rollout with the current weights. */
  async function emitFollowed(): Promise<void> {
    if (!active || !loaded) return;
    const rollout = await followGreedy(
      { config: active.config, policy: active.policy, tokenizer: loaded.tokenizer, frozen: active.frozen, heldOut: active.heldOut, step: active.trainer.state().step, ...(env.checker ? { checker: env.checker } : {}) },
      follow.index,
    );
    if (rollout) emit({ type: 'followed', rollout });
  }

  /** after load and reset: the followed problem's rollout comes before the start-up evaluation (the first rollout on screen) */
  function scheduleFollow(): void {
    enqueue(emitFollowed, (e) => fail(e, false));
  }

  /** One step; returns why training must stop (the run diverged: StepResult.stop), or null. */
  async function runStep(): Promise<string | null> {
    if (!active) throw new Error('no trainer: load a model first');
    const result = await active.trainer.step();
    emit({ type: 'step', metrics: result.metrics, rollouts: result.rollouts });
    if (result.eval) emitEvaluation(result.eval);
    if (follow.every > 0 && result.metrics.step % follow.every === 0) await emitFollowed();
    return result.stop ?? null;
  }

  /** A recoverable failure: report it, and the session is idle again. */
  const failIdle = (e: unknown) => {
    fail(e, false);
    status('idle');
  };

  /** Greedy held-out evaluation with the current weights. */
  async function evaluateActive(trainer: Trainer): Promise<void> {
    status('evaluating');
    emitEvaluation(await trainer.evaluate());
    status('idle');
  }

  /** evalBeforeTrain: the baseline evaluation, which also puts the first rollouts on screen */
  function scheduleBaseline(): void {
    enqueue(async () => {
      if (!active || !active.config.evalBeforeTrain || active.trainer.state().step > 0) return;
      await evaluateActive(active.trainer);
    }, failIdle);
  }

  /** Train: one step per queue slot, so other requests (intervene, export) interleave between steps. */
  function scheduleTraining(): void {
    enqueue(
      async () => {
        if (!wantTraining || !active) {
          emit({ type: 'stopped', reason: 'paused' });
          status('idle');
          return;
        }
        if (active.trainer.state().step >= active.config.steps) {
          wantTraining = false;
          emit({ type: 'phase', step: active.trainer.state().step, phase: `finished: ${active.config.steps} steps` });
          emit({ type: 'stopped', reason: 'finished' });
          status('idle');
          return;
        }
        status('training');
        const stop = await runStep();
        if (stop !== null) {
          // diverged (config.maxNonFiniteSteps): the page's divergence banner says why, from the step's metrics
          wantTraining = false;
          emit({ type: 'phase', step: active.trainer.state().step, phase: `stopped: diverged at step ${active.trainer.state().step}` });
          emit({ type: 'stopped', reason: 'diverged' });
          status('idle');
          return;
        }
        if (wantTraining) scheduleTraining();
        else {
          emit({ type: 'stopped', reason: 'paused' });
          status('idle');
        }
      },
      (e) => {
        wantTraining = false;
        fail(e, false);
        emit({ type: 'stopped', reason: 'error' });
        status('idle');
      },
    );
  }

  return (request) => {
    switch (request.type) {
      case 'load':
        // queued work for the old model is dropped; a step already running finishes first
        generation++;
        wantTraining = false;
        if (request.frozen) onnxSpec = request.frozen;
        enqueue(() => load(request.model, request.backend, request.config), (e) => fail(e, true));
        scheduleFollow();
        scheduleBaseline();
        break;
      case 'reset':
        wantTraining = false;
        enqueue(
          async () => {
            if (request.frozen) onnxSpec = request.frozen;
            active = await buildTrainer(validateConfig(request.config, 'config', undefined));
            emitFrozen();
            emit({ type: 'phase', step: 0, phase: 'reset: new run from the model weights' });
            status('idle');
          },
          (e) => {
            // a trainer that could not be rebuilt (e.g. a bad ONNX folder) leaves the one before it running
            fail(e, !active);
            if (active) status('idle');
          },
        );
        scheduleFollow();
        scheduleBaseline();
        break;
      case 'train':
        if (!wantTraining) {
          wantTraining = true;
          scheduleTraining();
        }
        break;
      case 'pause':
        wantTraining = false;
        break;
      case 'step':
        enqueue(async () => {
          status('stepping');
          await runStep();
          status('idle');
        }, failIdle);
        break;
      case 'evaluate':
        enqueue(async () => {
          if (!active) throw new Error('no trainer: load a model first');
          await evaluateActive(active.trainer);
        }, failIdle);
        break;
      case 'loadOnnx':
        enqueue(
          async () => {
            onnxSpec = request.frozen;
            try {
              await ensureOnnx();
              emitFrozen();
            } finally {
              status(active ? 'idle' : 'failed');
            }
          },
          (e) => fail(e, false),
        );
        break;
      case 'evaluateOnnx':
        enqueue(
          async () => {
            onnxSpec = request.frozen;
            await evaluateOnnx(request.config);
            status('idle');
          },
          (e) => {
            fail(e, false);
            status(active ? 'idle' : 'failed');
          },
        );
        break;
      case 'intervene':
        enqueue(
          async () => {
            if (!active || !loaded) throw new Error('no model is loaded');
            const problem = { id: 'intervention', task: 'math' as const, question: request.question, answer: request.gold };
            const judge = /^[AB]$/.test(request.gold) && active.config.trainSet === 'tiny-judge';
            const p = judge ? { ...problem, task: 'judge' as const } : problem;
            const frozen = active.frozen && { ...active.frozen, maxContext: active.frozen.maxContext ?? Number.POSITIVE_INFINITY };
            const ctx = { policy: active.policy, tokenizer: loaded.tokenizer, config: active.config, maxContext: loaded.checkpoint.config.maxPositionEmbeddings, frozen };
            const edited = await followPlan(ctx, p, request.plan);
            const original = await followPlan(ctx, p, request.originalPlan);
            emit({ type: 'intervention', requestId: request.requestId, result: { question: request.question, gold: request.gold, edited, original, step: active.trainer.state().step } });
          },
          (e) => fail(e, false, request.requestId),
        );
        break;
      case 'exportAdapter':
        enqueue(
          async () => {
            if (!active) throw new Error('no trainer: load a model first');
            const files: Record<string, Uint8Array> = {};
            const names = active.policy.adapters;
            for (const name of names) {
              const saved = await active.policy.saveAdapter(name);
              for (const [path, bytes] of Object.entries(saved)) files[names.length > 1 ? `${name}/${path}` : path] = bytes;
            }
            emit({ type: 'adapter', requestId: request.requestId, files });
          },
          (e) => fail(e, false, request.requestId),
        );
        break;
      case 'follow': {
        const changed = request.index !== follow.index;
        follow = { index: request.index, every: Math.max(0, Math.floor(request.every)) };
        if (changed && active) scheduleFollow();
        break;
      }
      default:
        request satisfies never;
    }
  };
}
