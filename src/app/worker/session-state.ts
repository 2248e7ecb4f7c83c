// What the worker session holds between requests (the loaded model, the running trainer, the ONNX model's source,
// whether Train is on, the followed problem) and what it was started with (SessionEnv). One mutable object the
// request handlers (session-handlers.ts) read and update; the job queue owns the status.
import type { EnginePolicy } from '../../engine/policy/engine-policy.ts';
import type { Problem } from '../../data/problem.ts';
import type { ExperimentConfig } from '../../rl/config.ts';
import type { FrozenAgentOptions, Trainer } from '../../rl/trainer.ts';
import type { AnswerChecker } from '../../rl/verifier/checker.ts';
import { DEFAULT_ONNX_SPEC } from './onnx-default.ts';
import type { OrtLoader } from './onnx-runtime.ts';
import { OnnxModelSlot } from './onnx-slot.ts';
import type { DatasetInfo, OnnxModelSpec, WorkerEvent } from './protocol.ts';
import type { JobQueue } from './session-jobs.ts';
import type { LoadedModel } from './session-model.ts';

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
  /** the time (ms) the "auto" backend's measurement reads while it measures `candidate`; default performance.now()
   *  (tests make one candidate's time run faster to choose the winner) */
  autoClock?: (candidate: string) => number;
}

/** The running trainer and what it was built from. */
export interface ActiveRun {
  config: ExperimentConfig;
  policy: EnginePolicy;
  /** the ONNX agent that never trains (config.frozenAgent), as the trainer got it */
  frozen: FrozenAgentOptions | undefined;
  trainer: Trainer;
  dataset: DatasetInfo;
  /** the held-out problems (the followed problem is one of them) */
  heldOut: Problem[];
  /** the page's id of this run (protocol.ts RunTagged), sent on its step, evaluation and followed events */
  run?: number;
}

export interface SessionState {
  readonly env: SessionEnv;
  /** sends an event to the page (activity lines throttled) */
  readonly emit: (e: WorkerEvent) => void;
  readonly jobs: JobQueue;
  loaded: LoadedModel | null;
  active: ActiveRun | null;
  /** where the ONNX model comes from (the latest load / reset / loadOnnx / evaluateOnnx request says) */
  onnxModel: OnnxModelSpec;
  readonly onnx: OnnxModelSlot;
  /** Train is on: each finished step queues the next */
  wantTraining: boolean;
  /**
   * the followed held-out problem (-1: the default), how often its greedy rollout is refreshed while training
   * (steps), and at most how often (ms: session-work.ts FOLLOW_MIN_INTERVAL_MS unless the request says)
   */
  follow: { index: number; every: number; minIntervalMs?: number };
}

export function createSessionState(env: SessionEnv, emit: (e: WorkerEvent) => void, jobs: JobQueue): SessionState {
  return {
    env,
    emit,
    jobs,
    loaded: null,
    active: null,
    onnxModel: DEFAULT_ONNX_SPEC,
    onnx: new OnnxModelSlot(),
    wantTraining: false,
    follow: { index: -1, every: 5 },
  };
}
