// The longest Echo Trap setting the embedded model allows, and where its runs and summary live.
import { resolve } from 'node:path';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import { getPreset } from '../../src/rl/presets.ts';

export const ECHO_RUNS = resolve(import.meta.dirname, '../../runs/echo-longest');
export const ECHO_RESULTS = resolve(import.meta.dirname, '../../results/echo-longest');

/** caps of 16 tokens and 5 rounds: the most rounds of the model's ~14-token messages that fit 256 tokens */
export const echoLongest = (): ExperimentConfig => ({
  ...getPreset('tiny-default'),
  name: 'echo-longest',
  miniBatches: 4,
  maxTokensPerTurn: 16,
  maxTurns: 5,
});
