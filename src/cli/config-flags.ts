// Turns the command line's config flags into a validated ExperimentConfig:
//   --preset NAME | --config FILE.json   the base (a config file may itself say "extends": "<preset>")
//   --set key=value (repeatable)         any field; the value is read by the field's kind (rl/config/text.ts:
//                                        numbers must be finite, lists comma-separated or a JSON array, a
//                                        quoted JSON string is that string); an unknown key names close fields
//   --steps N, --seed S                  shorthands for the two most common overrides
//   --frozen-agent meta|reasoning        sets frozenAgent (the model that runs it is a command's --frozen-model)

import { setTextValue, validateConfig, type ExperimentConfig } from '../rl/config.ts';
import { getPreset, resolveConfig } from '../rl/presets.ts';
import { intFlag } from './flags.ts';
import { readText } from './read-text.ts';

export interface ConfigFlags {
  preset?: string;
  config?: string;
  set?: string[];
  steps?: string;
  seed?: string;
  frozenAgent?: string;
}

export function parseSetFlag(flag: string): [string, unknown] {
  const eq = flag.indexOf('=');
  if (eq <= 0) throw new Error(`--set ${flag}: expected key=value`);
  const key = flag.slice(0, eq);
  return [key, setTextValue(key, flag.slice(eq + 1))];
}

export async function configFromFlags(flags: ConfigFlags): Promise<ExperimentConfig> {
  if (flags.preset && flags.config) throw new Error('give either --preset or --config, not both');
  let base: ExperimentConfig;
  if (flags.config) {
    let json: unknown;
    try {
      json = JSON.parse(await readText(flags.config));
    } catch (e) {
      throw new Error(`${flags.config}: cannot read the config (${(e as Error).message})`, { cause: e });
    }
    base = resolveConfig(json, flags.config);
  } else base = getPreset(flags.preset ?? 'tiny-default');
  const overrides: Record<string, unknown> = {};
  for (const s of flags.set ?? []) {
    const [k, v] = parseSetFlag(s);
    overrides[k] = v;
  }
  if (flags.steps !== undefined) overrides.steps = intFlag('--steps', flags.steps);
  if (flags.seed !== undefined) overrides.seed = intFlag('--seed', flags.seed);
  if (flags.frozenAgent !== undefined) overrides.frozenAgent = flags.frozenAgent;
  return validateConfig(overrides, 'command line (--set / --steps / --seed / --frozen-agent)', base);
}
