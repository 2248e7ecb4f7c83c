// What the page keeps about one training run: enough to redraw its curves, show its last rollouts, compare it
// with other runs and reproduce it (the config). The same record is the exported run JSON.
import type { ExperimentConfig } from '../../rl/config.ts';
import type { MetricsRecord, RolloutRecord } from '../../rl/metrics.ts';

export type RunStatus = 'running' | 'paused' | 'stopped' | 'crashed' | 'imported';

export interface SavedRun {
  id: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  /** null for runs imported from a CLI metrics.jsonl (the CLI keeps its config next to it) */
  config: ExperimentConfig | null;
  /** model name as shown in the header, e.g. "tiny-rema" or "hf://Qwen/Qwen2.5-0.5B-Instruct" */
  model: string;
  /** backend description, e.g. "cpu" or "webgpu: google / swiftshader" */
  backend: string;
  /** the frozen ONNX agent, when the run had one: "reasoning: tiny-rema (ONNX) · onnxruntime-web 1.30.0 WASM EP" */
  frozenModel?: string;
  status: RunStatus;
  metrics: MetricsRecord[];
  /** the rollouts of the latest step (older steps are dropped to keep the database small) */
  rollouts: RolloutRecord[];
  /** held-out evaluations (greedy pass@1), including the one before training (step 0) */
  evaluations?: EvaluationPoint[];
  /** the rollouts of the latest evaluation */
  evalRollouts?: RolloutRecord[];
}

export interface EvaluationPoint {
  /** updates applied when it ran */
  step: number;
  accuracy: number;
  reward_mean: number;
  n: number;
  /** episodes that did not fit the model's context, when some did (EvalResult.context_limited) */
  context_limited?: number;
  context_length?: number;
  context_prompt_tokens?: number;
}

/** The exported file: a SavedRun plus a format tag, so an import can tell it from other JSON. */
export interface RunFile extends SavedRun {
  format: 'rema-playground-run';
  version: 1;
}

export function newRunId(now = Date.now()): string {
  return `run-${now.toString(36)}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
}
