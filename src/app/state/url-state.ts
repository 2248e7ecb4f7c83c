// The whole setup lives in the URL hash, as in TensorFlow Playground, so a link reproduces it:
//   #preset=tiny-default&view=curves&backend=auto&model=embedded:tiny-rema&groupSize=4&ratio=token
// Config fields are written only where they differ from the preset. Reading validates everything with the RL
// core's validateConfig; a bad link falls back to the preset and says which field was wrong.
import { FIELD_SPECS, type ExperimentConfig } from '../../rl/config.ts';
import { getPreset, PRESETS } from '../../rl/presets.ts';
import type { BackendPreference, ModelSpec } from '../worker/protocol.ts';
import { validateConfig } from '../../rl/config.ts';
import type { ViewName } from '../store/types.ts';

export const DEFAULT_PRESET = 'tiny-default';
const views: readonly ViewName[] = ['curves', 'rollouts', 'intervene', 'runs'];
const backends: readonly BackendPreference[] = ['auto', 'cpu', 'webgpu'];
const reservedKeys = new Set(['preset', 'view', 'backend']);

export interface UrlState {
  /** the preset the config starts from (edits are the other URL keys) */
  preset: string;
  config: ExperimentConfig;
  view: ViewName;
  backend: BackendPreference;
  /** problems found while reading; the state above is still usable */
  errors: string[];
}

function encodeValue(value: unknown): string {
  if (Array.isArray(value)) return value.join(',');
  return String(value);
}

function decodeValue(key: keyof ExperimentConfig, text: string): unknown {
  const spec = FIELD_SPECS[key];
  switch (spec.kind) {
    case 'int':
    case 'number':
      return text.trim() === '' ? NaN : Number(text);
    case 'number-or-null':
      return text === 'null' || text === '' ? null : Number(text);
    case 'bool':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'strings':
      return text === '' ? [] : text.split(',');
    default:
      return text;
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The model a config names, for configs that can name it (a local folder needs its files: see ModelLoader). */
export function modelSpecFromConfig(config: ExperimentConfig): ModelSpec {
  return config.modelSource === 'hub' ? { kind: 'hf', repo: config.model, revision: 'main' } : { kind: 'embedded', name: config.model };
}

export function encodeUrlState(s: { preset: string; config: ExperimentConfig; view: ViewName; backend: BackendPreference }): string {
  const presetName = s.preset in PRESETS ? s.preset : DEFAULT_PRESET;
  const base = PRESETS[presetName];
  const params = new URLSearchParams();
  params.set('preset', presetName);
  params.set('view', s.view);
  params.set('backend', s.backend);
  for (const key of Object.keys(FIELD_SPECS) as (keyof ExperimentConfig)[]) {
    if (key === 'version') continue;
    if (!sameValue(s.config[key], base[key])) params.set(key, encodeValue(s.config[key]));
  }
  return `#${params.toString()}`;
}

export function decodeUrlState(hash: string): UrlState {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const errors: string[] = [];
  let preset = params.get('preset') ?? DEFAULT_PRESET;
  if (!(preset in PRESETS)) {
    errors.push(`URL: unknown preset "${preset}"; using ${DEFAULT_PRESET}`);
    preset = DEFAULT_PRESET;
  }
  const base = getPreset(preset);

  const overrides: Record<string, unknown> = {};
  for (const [key, text] of params) {
    if (reservedKeys.has(key)) continue;
    if (!(key in FIELD_SPECS) || key === 'version') {
      errors.push(`URL: unknown field "${key}" ignored`);
      continue;
    }
    overrides[key] = decodeValue(key as keyof ExperimentConfig, text);
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
  if (view !== viewText) errors.push(`URL: unknown view "${viewText}"`);
  const backendText = params.get('backend') ?? 'auto';
  const backend = (backends as readonly string[]).includes(backendText) ? (backendText as BackendPreference) : 'auto';
  if (backend !== backendText) errors.push(`URL: backend must be auto, cpu or webgpu (got "${backendText}")`);

  if (config.modelSource === 'local') {
    errors.push(`URL: the local folder "${config.model}" cannot be reopened from a link; pick it again under Model`);
    config = { ...config, modelSource: base.modelSource, model: base.model };
  }
  return { preset, config, view, backend, errors };
}
