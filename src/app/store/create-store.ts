// Builds the page's one bound store from its slices. A factory (not a module singleton) so that tests and the
// page each get their own store with their own TrainerClient and database.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ExperimentConfig } from '../../rl/config.ts';
import type { BackendPreference, ModelSpec, OnnxModelSpec, WeightPrecision } from '../worker/protocol.ts';
import { DEFAULT_ONNX_SPEC } from '../worker/onnx-default.ts';
import type { AblationSpec } from '../../rl/ablation.ts';
import { createAblationSlice } from './ablation-slice.ts';
import { createCalibrationSlice } from './calibration-slice.ts';
import { createConfigSlice } from './config-slice.ts';
import { createContext } from './context.ts';
import { createExplainSlice } from './explain-slice.ts';
import { createFollowSlice } from './follow-slice.ts';
import { createPresenterSlice } from './presenter-slice.ts';
import { createRunsSlice } from './runs-slice.ts';
import { createSessionSlice } from './session-slice.ts';
import { createSftSlice } from './sft-slice.ts';
import type { ChartX, PlaygroundState, StoreDeps, TokenColoring, ViewName } from './types.ts';
import { createViewSlice } from './view-slice.ts';

export interface InitialState {
  config: ExperimentConfig;
  preset: string;
  view: ViewName;
  backendPreference: BackendPreference;
  /** storage of the frozen base weights; default auto */
  weightPrecision?: WeightPrecision;
  modelSpec: ModelSpec;
  /** the ONNX model for a frozen agent / the VRP baseline; default the embedded tiny-rema's onnx/ folder */
  onnxModel?: OnnxModelSpec;
  /** the inspector's "colour by"; default advantage */
  coloring?: TokenColoring;
  /** the curves' EMA weight (default 0: raw) and x axis (default steps) */
  chartSmoothing?: number;
  chartX?: ChartX;
  /** the followed held-out problem (-1: default) and its refresh interval in steps */
  followIndex?: number;
  followEvery?: number;
  /** presenter mode, and its auto-reset after N steps (0: never) */
  presenting?: boolean;
  autoReset?: number;
  /** the ablation the link names (null: none) */
  ablation?: AblationSpec | null;
}

export type PlaygroundStore = StoreApi<PlaygroundState>;

export function createPlaygroundStore(deps: StoreDeps, initial: InitialState): PlaygroundStore {
  const ctx = createContext(deps);
  return createStore<PlaygroundState>()((...a) => ({
    ...createSessionSlice(ctx)(...a),
    ...createConfigSlice({ config: initial.config, preset: initial.preset })(...a),
    ...createRunsSlice(ctx)(...a),
    ...createFollowSlice({ followIndex: initial.followIndex, followEvery: initial.followEvery }, (request) =>
      ctx.client?.send(request),
    )(...a),
    ...createAblationSlice(ctx, initial.ablation ?? null)(...a),
    ...createCalibrationSlice(ctx)(...a),
    ...createSftSlice(ctx)(...a),
    ...createExplainSlice()(...a),
    ...createPresenterSlice({ presenting: initial.presenting, autoReset: initial.autoReset })(...a),
    ...createViewSlice({
      view: initial.view,
      backendPreference: initial.backendPreference,
      ...(initial.weightPrecision ? { weightPrecision: initial.weightPrecision } : {}),
      modelSpec: initial.modelSpec,
      onnxModel: initial.onnxModel ?? DEFAULT_ONNX_SPEC,
      coloring: initial.coloring,
      chartSmoothing: initial.chartSmoothing,
      chartX: initial.chartX,
    })(...a),
  }));
}
