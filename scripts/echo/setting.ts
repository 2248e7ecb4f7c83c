// The longest Echo Trap settings the embedded model allows (scripts/echo/horizon.ts), and where their runs and
// summary live. Both use per-turn caps of 16 tokens and 5 rounds (the most rounds of the model's ~14-token messages
// that fit 256 tokens) on the Fig. 6 base (tiny-default with 4 mini-batches): `cap16-stop` with the code's
// stopWhenTruncated (a message that fills its cap ends the episode), `cap16-continue` without it, so that the
// dialogue goes on after a cut message and the rounds can be used.
import { resolve } from 'node:path';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import { getPreset } from '../../src/rl/presets.ts';

export const ECHO_RUNS = resolve(import.meta.dirname, '../../runs/echo-longest');
export const ECHO_RESULTS = resolve(import.meta.dirname, '../../results/echo-longest');

const base = (): ExperimentConfig => ({
  ...getPreset('tiny-default'),
  name: 'echo-longest',
  miniBatches: 4,
  maxTokensPerTurn: 16,
  maxTurns: 5,
});

export const ECHO_SETTINGS: Record<string, () => ExperimentConfig> = {
  'cap16-stop': base,
  'cap16-continue': () => ({ ...base(), name: 'echo-longest-continue', stopWhenTruncated: false }),
};
