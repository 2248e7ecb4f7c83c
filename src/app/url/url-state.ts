// The whole setup lives in the URL hash, as in TensorFlow Playground, so a link reproduces it:
//   #preset=tiny-default&view=curves&backend=auto&weights=f32&groupSize=4&ratio=token&frozenAgent=reasoning&onnxModel=hub:org/name&colouring=token-ratio&smooth=0.6&x=minutes
// Config fields are written only where they differ from the preset, as text by their kind (rl/config/text.ts:
// lists comma-separated, null as "null"); the keys are the config's field names. onnxModel (the frozen agent's / VRP
// baseline's ONNX model: embedded:<folder>, hub:<org/name>[@revision]) only when it is not the shipped tiny-rema; weights (the
// frozen base's storage, auto or f32) only when it is f32. Reading validates everything with the RL
// core's validateConfig; a bad link falls back to the preset and says which field was wrong. Notices stay short
// whatever the link holds: unknown keys are counted in one line, quoted link text is clipped. A dataset file
// (trainSet=file, evalSet=file) cannot be reopened from a link: the preset's set is used, with a notice.
import {
  CONFIG_KEYS,
  fieldFromText,
  fieldToText,
  isConfigKey,
  validateConfig,
  type ExperimentConfig,
} from '../../rl/config.ts';
import { getPreset, PRESETS } from '../../rl/presets.ts';
import type { BackendPreference, ModelSpec, OnnxModelSpec, WeightPrecision } from '../worker/protocol.ts';
import { validateRepoId } from '../../engine/io/hub.ts';
import { DEFAULT_ONNX_SPEC, EMBEDDED_ONNX_MODELS } from '../worker/onnx-default.ts';
import { COLORINGS, type ChartX, type TokenColoring, type ViewName } from '../store/types.ts';
import { SMOOTHING_WEIGHTS } from '../components/charts/smoothing.ts';

export const DEFAULT_PRESET = 'tiny-default';
const views: readonly ViewName[] = ['curves', 'rollouts', 'plan', 'intervene', 'runs'];
const backends: readonly BackendPreference[] = ['auto', 'wasm', 'webgpu'];
const precisions: readonly WeightPrecision[] = ['auto', 'f32'];
/** link keys that are not config fields; `colour` is colouring's name in links written before it was renamed */
const reservedKeys = new Set([
  'preset',
  'view',
  'backend',
  'weights',
  'onnxModel',
  'colouring',
  'colour',
  'smooth',
  'x',
]);
/** unknown keys named in the notice; the rest are counted */
const UNKNOWN_KEYS_NAMED = 3;
/** longest piece of link text quoted in a notice */
const QUOTE_MAX = 40;

/** Link text as quoted in a notice: at most QUOTE_MAX characters, so a hostile link cannot make the banner huge. */
function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text);
}

/** One line for every unknown key, e.g. 'URL: 1200 unknown keys ignored: "a", "b", "c" and 1197 more'. */
export function unknownKeysNotice(keys: readonly string[]): string | null {
  if (keys.length === 0) return null;
  if (keys.length === 1) return `URL: unknown field ${quote(keys[0])} ignored`;
  const named = keys.slice(0, UNKNOWN_KEYS_NAMED).map(quote).join(', ');
  const rest = keys.length - UNKNOWN_KEYS_NAMED;
  return `URL: ${keys.length} unknown keys ignored: ${rest > 0 ? `${named} and ${rest} more` : named}`;
}

export interface UrlState {
  /** the preset the config starts from (edits are the other URL keys) */
  preset: string;
  config: ExperimentConfig;
  view: ViewName;
  backend: BackendPreference;
  /** storage of the frozen base weights (link key weights, written when f32) */
  weights: WeightPrecision;
  /** the ONNX model for a frozen agent and the VRP baseline */
  onnxModel: OnnxModelSpec;
  /** the rollout inspector's "colour by" (link key colouring, written when it is not advantage; older links' colour is read too) */
  coloring: TokenColoring;
  /** the curves' EMA weight (link key smooth, one of SMOOTHING_WEIGHTS; written when not 0) and x axis (x=minutes) */
  smoothing: number;
  chartX: ChartX;
  /** problems found while reading; the state above is still usable */
  errors: string[];
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The model a config names, for configs that can name it (a local folder needs its files: see ModelLoader). */
export function modelSpecFromConfig(config: ExperimentConfig): ModelSpec {
  return config.modelSource === 'hub'
    ? { kind: 'hub', repo: config.model, revision: 'main' }
    : { kind: 'embedded', name: config.model };
}

/** "embedded:tiny-rema", "hub:org/name" ("hub:org/name@rev" off main), "local:folder" (not reopenable: see decode). */
export function encodeOnnxModel(spec: OnnxModelSpec): string {
  if (spec.kind === 'hub') return `hub:${spec.repo}${spec.revision === 'main' ? '' : `@${spec.revision}`}`;
  return `${spec.kind}:${spec.name}`;
}

/** Reads an onnxModel value; a problem is thrown as an Error whose message says what is accepted. */
export function decodeOnnxModel(text: string): OnnxModelSpec {
  const colon = text.indexOf(':');
  const kind = colon < 0 ? '' : text.slice(0, colon);
  const value = text.slice(colon + 1);
  switch (kind) {
    case 'embedded':
      if (!EMBEDDED_ONNX_MODELS.includes(value)) {
        throw new Error(
          `URL: onnxModel "${text}": no embedded ONNX model "${value}" (shipped: ${EMBEDDED_ONNX_MODELS.join(', ')})`,
        );
      }
      return { kind: 'embedded', name: value };
    case 'hub': {
      const at = value.indexOf('@');
      const repo = at < 0 ? value : value.slice(0, at);
      const revision = at < 0 ? 'main' : value.slice(at + 1);
      try {
        validateRepoId(repo);
      } catch (e) {
        throw new Error(`URL: onnxModel "${text}": ${(e as Error).message}`, { cause: e });
      }
      if (revision === '') throw new Error(`URL: onnxModel "${text}": empty revision after "@"`);
      return { kind: 'hub', repo, revision };
    }
    case 'local':
      throw new Error(
        `URL: the local ONNX folder "${value}" cannot be reopened from a link; pick it again under "Frozen agent (ONNX)"`,
      );
    default:
      throw new Error(`URL: onnxModel "${text}" must be embedded:<folder> or hub:<org/name>[@revision]`);
  }
}

export function encodeUrlState(s: {
  preset: string;
  config: ExperimentConfig;
  view: ViewName;
  backend: BackendPreference;
  weights?: WeightPrecision;
  onnxModel?: OnnxModelSpec;
  coloring?: TokenColoring;
  smooth?: number;
  x?: ChartX;
}): string {
  const presetName = Object.hasOwn(PRESETS, s.preset) ? s.preset : DEFAULT_PRESET;
  const base = PRESETS[presetName];
  const params = new URLSearchParams();
  params.set('preset', presetName);
  params.set('view', s.view);
  params.set('backend', s.backend);
  if (s.weights && s.weights !== 'auto') params.set('weights', s.weights);
  for (const key of CONFIG_KEYS) {
    if (key === 'version') continue;
    if (!sameValue(s.config[key], base[key])) params.set(key, fieldToText(key, s.config[key]));
  }
  const onnxModel = s.onnxModel ? encodeOnnxModel(s.onnxModel) : null;
  if (onnxModel !== null && onnxModel !== encodeOnnxModel(DEFAULT_ONNX_SPEC)) params.set('onnxModel', onnxModel);
  if (s.coloring && s.coloring !== 'advantage') params.set('colouring', s.coloring);
  if (s.smooth) params.set('smooth', String(s.smooth));
  if (s.x === 'minutes') params.set('x', 'minutes');
  return `#${params.toString()}`;
}

export function decodeUrlState(hash: string): UrlState {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const errors: string[] = [];
  let preset = params.get('preset') ?? DEFAULT_PRESET;
  if (!Object.hasOwn(PRESETS, preset)) {
    errors.push(`URL: unknown preset ${quote(preset)}; using ${DEFAULT_PRESET}`);
    preset = DEFAULT_PRESET;
  }
  const base = getPreset(preset);

  const overrides: Record<string, unknown> = {};
  const unknown = new Set<string>();
  for (const [key, text] of params) {
    if (reservedKeys.has(key)) continue;
    if (!isConfigKey(key) || key === 'version') {
      unknown.add(key);
      continue;
    }
    overrides[key] = fieldFromText(key, text);
  }
  const unknownNotice = unknownKeysNotice([...unknown]);
  if (unknownNotice) errors.push(unknownNotice);
  // a dataset file comes from the user's disk (a CLI path, a picked file): a link cannot reopen it, and the
  // worker would fail to load it; the rest of the link still applies
  for (const [set, file] of [
    ['trainSet', 'trainFile'],
    ['evalSet', 'evalFile'],
  ] as const) {
    if (overrides[set] !== 'file') continue;
    const named =
      typeof overrides[file] === 'string' && overrides[file] !== ''
        ? ` (${file} ${quote(overrides[file] as string)})`
        : '';
    errors.push(
      `URL: ${set}=file${named} cannot be reopened from a link: the file must be picked again; using the ${set === 'trainSet' ? 'train' : 'held-out'} set "${base[set]}" instead`,
    );
    delete overrides[set];
    delete overrides[file];
  }
  let config = base;
  if (Object.keys(overrides).length > 0) {
    try {
      config = validateConfig(overrides, 'URL', base);
    } catch (e) {
      errors.push(`${(e as Error).message}\n(using the preset "${preset}" instead)`);
    }
  }

  const viewText = params.get('view') ?? 'curves';
  const view = (views as readonly string[]).includes(viewText) ? (viewText as ViewName) : 'curves';
  if (view !== viewText) errors.push(`URL: unknown view ${quote(viewText)}`);
  // "cpu": the WebAssembly backend's name in links written before it was called "wasm"
  const backendText = params.get('backend') === 'cpu' ? 'wasm' : (params.get('backend') ?? 'auto');
  const backend = (backends as readonly string[]).includes(backendText) ? (backendText as BackendPreference) : 'auto';
  if (backend !== backendText) errors.push(`URL: backend must be auto, wasm or webgpu (got ${quote(backendText)})`);
  const weightsText = params.get('weights') ?? 'auto';
  const weights = (precisions as readonly string[]).includes(weightsText) ? (weightsText as WeightPrecision) : 'auto';
  if (weights !== weightsText) errors.push(`URL: weights must be auto or f32 (got ${quote(weightsText)})`);

  let onnxModel = DEFAULT_ONNX_SPEC;
  const onnxText = params.get('onnxModel');
  if (onnxText !== null) {
    try {
      onnxModel = decodeOnnxModel(onnxText);
    } catch (e) {
      errors.push(`${(e as Error).message}; using the shipped ${encodeOnnxModel(DEFAULT_ONNX_SPEC)} instead`);
    }
  }

  const colorText = params.get('colouring') ?? params.get('colour') ?? 'advantage';
  const coloring = (COLORINGS as readonly string[]).includes(colorText) ? (colorText as TokenColoring) : 'advantage';
  if (coloring !== colorText)
    errors.push(`URL: colouring must be one of ${COLORINGS.join(', ')} (got ${quote(colorText)})`);

  const smoothText = params.get('smooth') ?? '0';
  const smoothing = (SMOOTHING_WEIGHTS as readonly number[]).includes(Number(smoothText)) ? Number(smoothText) : 0;
  if (String(smoothing) !== smoothText && smoothText !== '0')
    errors.push(`URL: smooth must be one of ${SMOOTHING_WEIGHTS.join(', ')} (got ${quote(smoothText)})`);
  const xText = params.get('x') ?? 'step';
  const chartX: ChartX = xText === 'minutes' ? 'minutes' : 'step';
  if (chartX !== xText) errors.push(`URL: x must be step or minutes (got ${quote(xText)})`);

  if (config.modelSource === 'local') {
    errors.push(`URL: the local folder "${config.model}" cannot be reopened from a link; pick it again under Model`);
    config = { ...config, modelSource: base.modelSource, model: base.model };
  }
  return { preset, config, view, backend, weights, onnxModel, coloring, smoothing, chartX, errors };
}
