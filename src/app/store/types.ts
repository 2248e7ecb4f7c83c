// The shape of the page's one zustand store, split into slices (session, config, runs, view). Slices talk to
// the engine and trainer only through the TrainerClient; components only through actions and selectors.
import type { AgentRole, ExperimentConfig, FrozenAgent } from '../../rl/config.ts';
import type { MetricsRecord, RolloutRecord } from '../../rl/metrics.ts';
import type { ExplainRecord } from '../../rl/train/explain.ts';
import type { AblationSpec } from '../../rl/ablation.ts';
import type { CalibrationEstimate } from '../../rl/calibration.ts';
import type { AblationDb } from '../persist/ablation-db.ts';
import type { AblationRecord } from '../persist/ablation-types.ts';
import type { BackendRatesStore } from '../persist/backend-rates.ts';
import type { RunsDb } from '../persist/runs-db.ts';
import type { EvaluationPoint, SavedRun } from '../persist/run-types.ts';
import type {
  BackendInfo,
  BackendPreference,
  WeightPrecision,
  DatasetInfo,
  FollowedRollout,
  InterventionResult,
  ModelInfo,
  ModelSpec,
  OnnxEvaluation,
  OnnxInfo,
  OnnxModelSpec,
  SessionStatus,
  TrainerClient,
  WorkerEvent,
} from '../worker/protocol.ts';

export interface LoadProgress {
  part: string;
  file: string | null;
  loaded: number;
  total: number | null;
}

export interface SessionSlice {
  status: SessionStatus;
  /** true while the user wants continuous training (Train pressed, Pause not yet) */
  wantsTraining: boolean;
  backend: BackendInfo | null;
  model: ModelInfo | null;
  dataset: DatasetInfo | null;
  progress: LoadProgress | null;
  /** what the session does now (the running step's stage, a note), for the status line */
  activity: string | null;
  /** last error shown in the page; fatal errors also stop the session */
  /** `continuable`: the run moved to another backend after a lost GPU device; the banner offers to continue */
  error: { message: string; fatal: boolean; continuable?: boolean } | null;
  intervention: { pending: boolean; result: InterventionResult | null; error: string | null };
  /** what the worker reports: the running trainer's frozen agent (role null: none) and the ONNX model it holds */
  frozen: { role: AgentRole | null; onnx: OnnxInfo | null };
  /** the latest VRP baseline of the ONNX model (null before the first) */
  onnxEvaluation: OnnxEvaluation | null;
  start(): Promise<void>;
  train(): void;
  pause(): void;
  step(): void;
  reset(): void;
  evaluate(): void;
  loadModel(spec: ModelSpec): void;
  /** backend "auto": load the model again and measure the backends, ignoring the rates kept for it */
  remeasureBackend(): void;
  /** which agent is the frozen ONNX model (config.frozenAgent); applies at once: a new run starts */
  setFrozenAgent(role: FrozenAgent): void;
  /** where the ONNX model comes from; loads it now (and starts a new run when an agent is frozen) */
  setOnnxModel(spec: OnnxModelSpec): void;
  /** the VRP baseline: greedy held-out accuracy of the ONNX model as the whole policy */
  evaluateOnnx(): void;
  restartWorker(): void;
  intervene(question: string, gold: string, plan: string, originalPlan: string): void;
  exportLora(): Promise<Record<string, Uint8Array>>;
  dismissError(): void;
  internal_onEvent(event: WorkerEvent): void;
}

export interface ConfigSlice {
  /** the validated config the trainer runs (or will run after Reset) */
  config: ExperimentConfig;
  /** preset the config started from (edits are kept on top of it) */
  preset: string;
  /** true when the config differs from the one the running trainer was built with */
  configDirty: boolean;
  /** the config the running trainer was built with (saved with its run) */
  activeConfig: ExperimentConfig;
  /** field -> message for the last rejected edit */
  configErrors: Record<string, string>;
  setConfigField(path: string, value: unknown): void;
  applyPreset(name: string): void;
  replaceConfig(config: ExperimentConfig): void;
}

export interface RunsSlice {
  /** the run being trained now (null before the first step of a fresh trainer) */
  currentRun: SavedRun | null;
  /** saved runs, newest first (includes the current one) */
  runs: SavedRun[];
  /** run ids drawn on the charts next to the current run */
  overlayIds: string[];
  /** a saved run shown in the rollout inspector instead of the current one (null: the current run) */
  inspectedRunId: string | null;
  inspectRun(id: string | null): void;
  toggleOverlay(id: string): void;
  deleteRun(id: string): Promise<void>;
  importRun(text: string, fileName: string): Promise<void>;
  /** the worker's backend, once a run exists: a run moved to another backend names both */
  internal_recordBackend(backend: BackendInfo): void;
  internal_recordStep(metrics: MetricsRecord, rollouts: RolloutRecord[]): void;
  internal_recordEvaluation(point: EvaluationPoint, rollouts: RolloutRecord[]): void;
}

export type ViewName = 'curves' | 'rollouts' | 'plan' | 'intervene' | 'runs';
/** per-token colourings of the inspector (from the per-token arrays of a step's TurnRecords) */
export type TokenMode = 'token-advantage' | 'token-ratio' | 'token-clip';
/** "colour by" in the rollout inspector: whole cards (advantage, reward), nothing, or each trained token */
export type TokenColoring = 'none' | 'advantage' | 'reward' | TokenMode;
export const COLORINGS: readonly TokenColoring[] = [
  'advantage',
  'reward',
  'none',
  'token-advantage',
  'token-ratio',
  'token-clip',
];

export interface ViewSlice {
  view: ViewName;
  backendPreference: BackendPreference;
  /** storage of the frozen base weights: auto (f16 on shader-f16) or f32 (link key weights) */
  weightPrecision: WeightPrecision;
  modelSpec: ModelSpec;
  /** the frozen agent's / VRP baseline's ONNX model source (in the URL next to the model) */
  onnxModel: OnnxModelSpec;
  /** group shown first in the rollout inspector */
  selectedGroup: number;
  coloring: TokenColoring;
  /** the curves: EMA smoothing weight (0 = raw values) and the x axis (steps, or minutes of training) */
  chartSmoothing: number;
  chartX: ChartX;
  setView(view: ViewName): void;
  setBackendPreference(pref: BackendPreference): void;
  setWeightPrecision(weights: WeightPrecision): void;
  selectGroup(group: number): void;
  setColoring(c: TokenColoring): void;
  setChartSmoothing(weight: number): void;
  setChartX(x: ChartX): void;
}

/** the curves' x axis */
export type ChartX = 'step' | 'minutes';

export interface FollowSlice {
  /** the followed problem's greedy rollouts in the current run, oldest first (thinned beyond follow-slice's MAX_FOLLOWED) */
  followed: FollowedRollout[];
  /** held-out index of the followed problem (-1: the first with a loss in its question) */
  followIndex: number;
  /** its greedy rollout is refreshed every this many steps */
  followEvery: number;
  setFollow(index: number, every?: number): void;
  internal_recordFollowed(rollout: FollowedRollout): void;
}

export interface ExplainSlice {
  /** the trainer's explain records of the current run's last steps (explain-slice.ts EXPLAIN_KEEP), oldest first */
  explains: ExplainRecord[];
  /** the step the explain view shows (null: closed; -1: open, waiting for the first record) */
  explainStep: number | null;
  /** the screen of the explain view (0 = the group's rollouts) */
  explainScreen: number;
  /** opens the explain view on `step` (the nearest recorded step at or before it; default the latest) */
  openExplain(step?: number): void;
  closeExplain(): void;
  setExplainScreen(screen: number): void;
  internal_recordExplain(record: ExplainRecord): void;
}

export interface PresenterSlice {
  /** presenter mode: the full-screen booth view */
  presenting: boolean;
  /** presenter mode starts a new run after this many steps (0: never) */
  autoReset: number;
  setPresenting(on: boolean): void;
  setAutoReset(steps: number): void;
}

export interface AblationSlice {
  /** the ablation set up in the panel and the link (fields x values, seeds); null: none */
  ablationSpec: AblationSpec | null;
  /** the ablation running or last run on this page, with every run's curves (IndexedDB) */
  ablation: AblationRecord | null;
  /** why the last ablation action was refused, or why a stored ablation cannot resume */
  ablationError: string | null;
  setAblationSpec(spec: AblationSpec | null): void;
  /** runs the spec on the page's config and model (or continues its stored progress) */
  runAblation(): Promise<void>;
  /** pauses the ablation; the run in progress starts over on the next runAblation */
  stopAblation(): void;
  /** forgets the ablation and its stored progress */
  clearAblation(): Promise<void>;
  /** at start: the stored progress of the link's ablation, resumed once its model is loaded */
  restoreAblation(): Promise<void>;
  internal_ablationEvent(event: WorkerEvent): void;
}

export interface CalibrationSlice {
  /** the last calibration of the running config on the loaded model (the planner's time estimate) */
  calibration: {
    model: string;
    stepSeconds: number;
    runSeconds: number;
    estimate?: CalibrationEstimate;
    error?: string;
  } | null;
  calibrating: boolean;
  calibrate(): void;
  internal_recordCalibration(event: Extract<WorkerEvent, { type: 'calibration' }>): void;
  internal_calibrationFailed(requestId: number, message: string): void;
}

/** The page's SFT mode (sft-slice.ts). */
export interface SftState {
  /** the tiny task's meta-thinking dialogues / CoT answers, or the picked chat JSONL file */
  data: 'tiny-meta' | 'tiny-cot' | 'file';
  file: { name: string; text: string } | null;
  steps: number;
  batchSize: number;
  lr: number;
  /** tiny data: problems whose chats are generated */
  problems: number;
  running: boolean;
  requestId: number | null;
  /** the loss of every step the worker reported, in order */
  losses: { step: number; loss: number }[];
  total: number;
  /** the finished SFT run: steps, chats, checksums of the loaded model's and the SFT'd weights */
  done: { steps: number; chats: number; baseChecksum: string; checksum: string } | null;
  /** checksum of the weights the RL run was rebuilt from after "start RL from this model" */
  adopted: string | null;
  error: string | null;
}

export interface SftSlice {
  sft: SftState;
  setSftOptions(change: Partial<Pick<SftState, 'data' | 'file' | 'steps' | 'batchSize' | 'lr' | 'problems'>>): void;
  runSft(): void;
  stopSft(): void;
  /** the SFT'd weights become the model the RL run starts from (a new run at step 0) */
  adoptSft(): void;
  internal_sftEvent(event: WorkerEvent): void;
}

export type PlaygroundState = SessionSlice &
  ConfigSlice &
  RunsSlice &
  ViewSlice &
  FollowSlice &
  PresenterSlice &
  ExplainSlice &
  AblationSlice &
  CalibrationSlice &
  SftSlice;

export interface StoreDeps {
  createClient(): TrainerClient;
  openDb(): Promise<RunsDb>;
  /** the ablations' database; without it ablations run but are not kept across reloads */
  openAblationDb?(): Promise<AblationDb>;
  /** where the "auto" backend's measurements are kept across reloads; without it every load measures */
  backendRates?: BackendRatesStore;
  now?: () => number;
}
