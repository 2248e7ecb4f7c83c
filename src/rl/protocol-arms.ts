// Protocols as an ablation axis. A grid point with the key "preset" runs that preset's protocol and algorithm (its
// mode, caps, advantage, ratio, KL, learning rate, batch shape) with the base config's model, data, evaluation
// and step budget (on another model than the preset's, the base's learning rate, caps and batch shape too), so
// every arm trains for the same number of steps on the same training problems and is evaluated on the same
// held-out problems at the same steps. VRP (mode "vrp") is the untrained baseline: evaluated once, before any step,
// and never trained. Each arm carries the row name of the paper's Table 1.
import { validateConfig, type ExperimentConfig } from './config.ts';
import { getPreset } from './presets.ts';

export const PRESET_AXIS = 'preset';

/** What every arm takes from the base config: the model and its prompt set, the data, evaluation and step budget. */
export const SHARED_ARM_FIELDS = [
  'steps',
  'modelSource',
  'model',
  'finetune',
  'loraRank',
  'loraAlpha',
  'loraTargets',
  'prompts',
  'trainSet',
  'trainFile',
  'trainSize',
  'evalSet',
  'evalFile',
  'evalSize',
  'evalEvery',
  'evalBeforeTrain',
  'decodeBatch',
] as const satisfies readonly (keyof ExperimentConfig)[];

/**
 * What an arm also takes from the base when the base runs another model than the preset was sized for (a
 * comparison on Qwen2.5-0.5B from math133-qwen0.5b, say): the tiny presets' learning rate, token caps and batch
 * shape fit the embedded model, so there the arms keep only their protocol and algorithm (mode, turns, advantage,
 * ratio, clipping, KL, aggregation) and share the base's optimizer, caps and batch.
 */
export const MODEL_SIZED_ARM_FIELDS = [
  'lr',
  'lrSchedule',
  'warmupSteps',
  'weightDecay',
  'gradClip',
  'maxTokensPerTurn',
  'maxPromptTokens',
  'problemsPerStep',
  'groupSize',
  'miniBatches',
] as const satisfies readonly (keyof ExperimentConfig)[];

/** The presets a protocol comparison runs by default: Table 1's columns on the embedded model. */
export const COMPARE_PRESETS = ['vrp', 'vrp-rl', 'mrp-rl', 'tiny-default'] as const;

/** A preset's arm on `base`: the preset with the base's shared fields, and with its model-sized fields too when the
 *  base runs another model than the preset (VRP keeps 0 steps and evaluates first). */
export function presetArm(preset: string, base: ExperimentConfig): ExperimentConfig {
  const arm: Record<string, unknown> = { ...getPreset(preset) };
  const otherModel = arm.model !== base.model || arm.modelSource !== base.modelSource;
  for (const k of SHARED_ARM_FIELDS) arm[k] = base[k];
  if (otherModel) for (const k of MODEL_SIZED_ARM_FIELDS) arm[k] = base[k];
  const config = arm as unknown as ExperimentConfig;
  return config.mode === 'vrp' ? { ...config, steps: 0, evalBeforeTrain: true } : config;
}

/**
 * A grid point's config on `base`: with a "preset" key the preset's arm (presetArm) is the base the point's other
 * keys override; without one the point overrides `base` itself.
 */
export function pointConfig(
  point: Record<string, unknown>,
  overrides: Record<string, unknown>,
  base: ExperimentConfig,
  source: string,
): ExperimentConfig {
  if (!(PRESET_AXIS in point)) return validateConfig(overrides, source, base);
  const preset = point[PRESET_AXIS];
  if (typeof preset !== 'string') throw new Error(`${source}: "${PRESET_AXIS}" must be a preset name (string)`);
  const rest = { ...overrides };
  delete rest[PRESET_AXIS];
  let arm: ExperimentConfig;
  try {
    arm = presetArm(preset, base);
  } catch (e) {
    throw new Error(`${source}: ${(e as Error).message}`, { cause: e });
  }
  return validateConfig(rest, source, arm);
}

/** The paper's Table 1 row name of a config's protocol. */
export function protocolRowName(config: Pick<ExperimentConfig, 'mode'>): string {
  switch (config.mode) {
    case 'vrp':
      return 'VRP (CoT)';
    case 'vrp-rl':
      return 'VRP_RL';
    case 'mrp-rl':
      return 'MRP_RL';
    case 'single-turn':
      return 'ReMA (single-turn)';
    default:
      return 'ReMA (multi-turn)';
  }
}

/** How the page and the reports name a grid point: a preset's Table 1 row name (then the point's other keys), else
 *  the point's label. */
export function armLabel(point: Record<string, unknown>, label: string, base: ExperimentConfig): string {
  const preset = point[PRESET_AXIS];
  if (typeof preset !== 'string') return label;
  let name: string;
  try {
    name = protocolRowName(presetArm(preset, base));
  } catch {
    return label;
  }
  const rest = label
    .split(',')
    .filter((part) => !part.startsWith(`${PRESET_AXIS}=`))
    .join(',');
  return rest ? `${name} ${rest}` : name;
}
