// What the page keeps about one ablation (src/rl/ablation.ts): the spec, the base config and model it runs on,
// and per run its status and curves. Written to IndexedDB after every step, so a reload resumes the ablation at
// the first run that had not finished (finished runs are never run again).
import type { AblationSpec } from '../../rl/ablation.ts';
import type { ExperimentConfig } from '../../rl/config.ts';
import type { StageTimes } from '../../rl/metrics.ts';

export type AblationRunStatus = 'pending' | 'running' | 'done' | 'failed';

export interface AblationRunState {
  /** "<label>#<seed>" (AblationRunPlan.key) */
  key: string;
  label: string;
  point: Record<string, unknown>;
  seed: number;
  status: AblationRunStatus;
  /** per step: the training reward, the stage times and the trained tokens (what the summary and the curves need) */
  metrics: Array<{ step: number; reward_mean: number; time_s: StageTimes; tokens_trained?: number }>;
  /** held-out greedy accuracy and the number of problems, by step */
  evals: Array<{ step: number; accuracy: number; n?: number }>;
  /** wall-clock seconds from the run's start to its end */
  wall_s: number;
  /** why the run failed, or "diverged" when it stopped on non-finite steps */
  note?: string;
}

export type AblationStatus = 'running' | 'paused' | 'done' | 'failed';

export interface AblationRecord {
  /** ablationId(spec, base) */
  id: string;
  spec: AblationSpec;
  base: ExperimentConfig;
  /** the model every run loads, as the page names it (ModelInfo.name); a reload resumes only on this model */
  model: string;
  createdAt: number;
  updatedAt: number;
  status: AblationStatus;
  runs: AblationRunState[];
  /** the last failure, shown in the panel */
  error?: string;
}
