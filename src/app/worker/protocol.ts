// The message protocol between the page and the training worker: one discriminated union each way.
// Everything is structured-cloneable (plain objects, typed arrays, Map, File), so the same messages also
// flow through the in-process twin (session.ts called directly) used by component tests.
import type { AgentRole, ExperimentConfig } from '../../rl/config.ts';
import type { MetricsRecord, RolloutRecord } from '../../rl/metrics.ts';
import type { InterventionTrace } from '../../rl/intervention.ts';
import type { CalibrationEstimate } from '../../rl/calibration.ts';
import type { BackendChoice, BackendRates } from '../../rl/backend-calibration.ts';
import type { ContextFields } from '../../rl/train/context.ts';
import type { ExplainRecord } from '../../rl/train/explain.ts';
import type { BackendKind } from '../../engine/backend.ts';

/** "auto": the backend that measured fastest on the loaded model (backend-auto.ts), "wasm" the WebAssembly kernels
 *  (plain JavaScript where they cannot start). Links written before read "cpu" as "wasm". */
export type BackendPreference = 'auto' | 'wasm' | 'webgpu';

/** Storage of the frozen base weights (EnginePolicy baseDtype; the CLI's --weight-dtype auto|f32): "auto" f16 on a
 *  WebGPU adapter with shader-f16 (and the KV cache with it), "f32" full precision everywhere. */
export type WeightPrecision = 'auto' | 'f32';

/** What the trainer's weights and KV cache are stored as, once it is built (shown with the backend). */
export interface WeightStorage {
  base: 'f32' | 'f16' | 'bf16';
  kvCache: 'f32' | 'f16';
}

/** What "auto" measured (rl/backend-calibration.ts), as the page shows it and keeps it. */
export interface AutoBackendReport {
  /** the page keeps the rates under it: the adapter (or its absence), the CPU backend's build, the model's name and shape */
  key: string;
  choice: BackendChoice;
  /** the rates came from the page's cache: nothing was measured on this load */
  cached: boolean;
  /** why a backend was not measured (no WebGPU adapter, no device); null when every backend was */
  note: string | null;
  /** e.g. "auto -> wasm: 0.45 ms/token, 1.2 s/step (webgpu 9.1 ms/token, 6.0 s/step; measured 2.3 s, cached)" */
  line: string;
}

/** Rates an earlier "auto" measured, kept by the page (localStorage) and sent with the next load. */
export interface CachedBackendRates {
  key: string;
  rates: BackendRates[];
  measured_ms: number;
}

export type ModelSpec =
  /** a folder under public/models/ served with the page (offline) */
  | { kind: 'embedded'; name: string }
  /** a Hugging Face repo id, downloaded once and cached */
  | { kind: 'hub'; repo: string; revision: string }
  /** a local folder the user picked; paths are relative to that folder */
  | { kind: 'local'; name: string; files: Map<string, File> };

/**
 * Where a frozen agent's ONNX model comes from: the same three kinds as ModelSpec, each a folder in the hub's
 * onnx-community layout (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx and, for models
 * over 2 GB, onnx/model.onnx_data). "embedded" names a folder under public/models/ that has an onnx/ folder.
 */
export type OnnxModelSpec = ModelSpec;

/** The ONNX model the worker loaded (as a frozen agent, or for the VRP baseline). */
export interface OnnxInfo {
  /** e.g. "tiny-rema (ONNX)", "hf://onnx-community/Qwen2.5-0.5B-Instruct (ONNX)" */
  name: string;
  architecture: string;
  layers: number;
  /** the execution provider that runs it: "webgpu" or "wasm" in the page ("cpu" under onnxruntime-node in tests) */
  ep: string;
  /** e.g. "onnxruntime-web 1.30.0 WASM EP" */
  runtime: string;
  /** why the EP is not the one the backend asked for (the WebGPU EP failed and the WASM EP took over); else null */
  notice: string | null;
}

export interface OnnxEvaluation {
  /** the ONNX model that answered, and its runtime */
  onnx: OnnxInfo;
  /** always "vrp": the ONNX model is the whole policy (plain chain of thought) */
  mode: 'vrp';
  accuracy: number;
  reward_mean: number;
  n: number;
  rollouts: RolloutRecord[];
}

export interface BackendInfo {
  /** 'wasm' is the CPU backend with WebAssembly SIMD kernels */
  kind: BackendKind;
  /** e.g. "google / swiftshader (software fallback)" or "wasm (WebAssembly SIMD kernels, 1 thread)" */
  description: string;
  /** baseDtype 'auto' stores the frozen base as f16 here (WebGPU with `shader-f16`) */
  f16: boolean;
  /** the WebGPU adapter seen, even when the CPU backend was chosen; null when navigator.gpu gave none */
  adapter: string | null;
  /** why the CPU backend is used, shown as a notice; null when on WebGPU */
  cpuReason: string | null;
  /** under "auto": what was measured and why this backend won */
  auto?: AutoBackendReport;
  /** under "auto" before its measurement has chosen: the backend the model runs on for now, while the measurement is
   *  queued or running (measuring), or after it failed (the line says why) */
  autoPending?: { line: string; measuring: boolean };
  /** with the ready event: how the trainer stores its frozen base and KV cache (e.g. f16 on shader-f16) */
  storage?: WeightStorage;
}

export interface ModelInfo {
  name: string;
  architecture: string;
  parameters: number;
  layers: number;
  hiddenSize: number;
  vocabSize: number;
}

export interface DatasetInfo {
  name: string;
  train: number;
  heldOut: number;
}

/** One reasoning-agent run under a given plan (rl/intervention.ts). */
export type { InterventionTrace };

export interface InterventionResult {
  question: string;
  gold: string;
  edited: InterventionTrace;
  original: InterventionTrace;
  /** trainer step whose weights answered */
  step: number;
}

/**
 * The followed problem's greedy rollout with the weights of `step` (the held-out evaluation's protocol, one
 * problem): the page's first rollout on screen, the plan view's timeline and presenter mode's live problem.
 */
export interface FollowedRollout {
  step: number;
  /** index of the problem in the held-out set */
  index: number;
  question: string;
  gold: string;
  /** every message of the episode, in order */
  turns: { role: 'meta' | 'reasoning'; text: string }[];
  /** null: not graded yet (the rollout is sent once generated, then again graded) */
  correct: boolean | null;
  extracted: string | null;
}

export type SessionStatus = 'loading' | 'idle' | 'training' | 'stepping' | 'evaluating' | 'failed';

export type WorkerRequest =
  /**
   * `onnxModel`: the ONNX model of config.frozenAgent (default: the embedded tiny-rema's onnx/ folder). `run`: the
   * page's id of the run the new trainer starts, echoed on its step, evaluation and followed events (RunTagged).
   * `autoRates`: under backend "auto", the rates the page kept (one is used when its key matches: no measuring);
   * `remeasure`: measure even so
   */
  | {
      type: 'load';
      model: ModelSpec;
      backend: BackendPreference;
      config: ExperimentConfig;
      onnxModel?: OnnxModelSpec;
      run?: number;
      autoRates?: CachedBackendRates[];
      remeasure?: boolean;
      /** storage of the frozen base; default auto */
      weights?: WeightPrecision;
    }
  /**
   * rebuild the trainer with a new config (the weights are reloaded from the model: step 0); `onnxModel`: a new ONNX
   * source; `run` as for load (when the new trainer cannot be built, the one that keeps running takes it)
   */
  | { type: 'reset'; config: ExperimentConfig; onnxModel?: OnnxModelSpec; run?: number }
  /** load (or reuse) the ONNX model now, so its name, runtime or error shows before it is used */
  | { type: 'loadOnnx'; onnxModel: OnnxModelSpec }
  /** VRP baseline: greedy held-out evaluation of the ONNX model as the whole policy (config's held-out set) */
  | { type: 'evaluateOnnx'; config: ExperimentConfig; onnxModel: OnnxModelSpec }
  /** run steps back to back until `pause` */
  | { type: 'train' }
  | { type: 'pause' }
  /** run exactly one update */
  | { type: 'step' }
  | { type: 'evaluate' }
  | { type: 'intervene'; requestId: number; question: string; gold: string; plan: string; originalPlan: string }
  | { type: 'exportLora'; requestId: number }
  /** time one decode call, one scoring pass and one gradient chunk of the running config's step shape (rl/calibration.ts) */
  | { type: 'calibrate'; requestId: number }
  /**
   * follow held-out problem `index` (-1: the first with a loss in its question) and refresh its greedy rollout
   * every `every` steps (0: only at load, reset and on this request), at most once per `minIntervalMs` (default
   * 1000: a fast run's refreshes would only load the page); a `followed` event answers at once
   */
  | { type: 'follow'; index: number; every: number; minIntervalMs?: number }
  /** supervised fine-tuning of the loaded model (session-sft.ts); the SFT'd weights wait for `sftAdopt` */
  | { type: 'sft'; requestId: number; settings: SftPageSettings }
  /** stop the SFT run after its current step (its weights so far are kept) */
  | { type: 'sftStop' }
  /** the SFT'd weights become the loaded model; a new RL run with `config` (the page's run `run`, as reset) starts from them (step 0) */
  | { type: 'sftAdopt'; config: ExperimentConfig; run?: number };

/** What the page's SFT mode trains on and how long (src/rl/sft.ts's loop on the loaded model). */
export interface SftPageSettings {
  /** the tiny task's meta-thinking dialogues or CoT answers (src/data/tiny-task), or a chat JSONL file's text */
  data: { kind: 'tiny-meta' } | { kind: 'tiny-cot' } | { kind: 'file'; name: string; text: string };
  /** tiny data: problems whose chats are generated */
  problems: number;
  steps: number;
  batchSize: number;
  lr: number;
  seed: number;
}
/**
 * The run a trainer's results belong to: the `run` of the load or reset request that built the trainer (absent
 * when the request had none). A step still running when the page pressed Reset ends after it; the page drops its
 * events by this id instead of saving them as a new run.
 */
export interface RunTagged {
  run?: number;
}

/**
 * Where the worker's time of one step went (ms): the trainer's step, the host copy kept for a device loss
 * (session-device-loss.ts; 0 off WebGPU), and the wall-clock instants (ms since the Unix epoch, timeOrigin +
 * performance.now()) the step's job started and its event was sent, so the page can tell the worker's time between
 * steps and the message's latency from the trainer's work (bench/browser/page-train.ts reads them).
 */
export interface StepTiming {
  trainer_ms: number;
  keep_ms: number;
  started_at: number;
  sent_at: number;
}

export type WorkerEvent =
  | { type: 'progress'; part: string; file: string | null; loaded: number; total: number | null }
  /** the backend is chosen (sent before the model loads, so the header shows it even if loading fails) */
  | { type: 'backend'; backend: BackendInfo }
  | { type: 'ready'; backend: BackendInfo; model: ModelInfo; dataset: DatasetInfo }
  | { type: 'status'; status: SessionStatus }
  /** the status line's text: a stage of the current step started (rollout, reward, update, ...), work inside it, or a
   *  note on what the session does (reset, finished, a lost device) */
  | { type: 'activity'; step: number; text: string }
  /** `explain`: what the update did to one problem group ("Explain this step"; rl/train/explain.ts) */
  | ({
      type: 'step';
      metrics: MetricsRecord;
      rollouts: RolloutRecord[];
      explain?: ExplainRecord;
      timing?: StepTiming;
    } & RunTagged)
  /** continuous training stopped: Pause, the config's step count reached, an error, or the run diverged (config.maxNonFiniteSteps) */
  | { type: 'stopped'; reason: 'paused' | 'finished' | 'error' | 'diverged' }
  /** a greedy held-out evaluation finished (before training, on request, or on an evaluation step) */
  | ({
      type: 'evaluation';
      step: number;
      accuracy: number;
      reward_mean: number;
      n: number;
      rollouts: RolloutRecord[];
    } & ContextFields &
      RunTagged)
  | { type: 'intervention'; requestId: number; result: InterventionResult }
  /**
   * the frozen agent of the current trainer (role null: none) and the ONNX model the worker holds (null: none),
   * sent when a trainer is built and when an ONNX model loads
   */
  | { type: 'frozen'; role: AgentRole | null; onnx: OnnxInfo | null }
  | { type: 'onnxEvaluation'; result: OnnxEvaluation }
  | { type: 'lora'; requestId: number; files: Record<string, Uint8Array> }
  /** the calibration's timings and the step / run time they give for the running config, on `model` */
  | { type: 'calibration'; requestId: number; model: string; estimate: CalibrationEstimate }
  /** the followed problem's greedy rollout: after load and reset (before the start-up evaluation) and every few steps */
  | ({ type: 'followed'; rollout: FollowedRollout } & RunTagged)
  /** one SFT step: the mean NLL per trained token of its batch (before the update) */
  | { type: 'sftStep'; requestId: number; step: number; total: number; loss: number; tokens: number }
  /** the SFT run ended (all steps, or sftStop): checksums of the loaded model's weights and of the SFT'd ones */
  | { type: 'sftDone'; requestId: number; steps: number; chats: number; baseChecksum: string; checksum: string }
  /** the RL run now starts from the SFT'd weights: the checksum of the weights its policy was built from */
  | { type: 'sftAdopted'; checksum: string; model: ModelInfo }
  /** fatal: the session cannot continue without a new `load` */
  /** `continuable`: the run moved to another backend after its GPU device was lost; the page offers to go on */
  | { type: 'error'; message: string; fatal: boolean; requestId: number | null; continuable?: true };

/** What the store talks to: a worker, or the session in-process. */
export interface TrainerClient {
  send(request: WorkerRequest): void;
  /** returns an unsubscribe function */
  subscribe(listener: (event: WorkerEvent) => void): () => void;
  terminate(): void;
}
