// The config field maxNonFiniteSteps (stop a diverged run): every preset has it (3), validation names it, a config
// saved before it existed reads as 3, and the page's URL carries an edit of it both ways.
import { describe, expect, it } from 'vitest';
import { decodeUrlState, encodeUrlState } from '../../../src/app/url/url-state.ts';
import { knobByKey } from '../../../src/app/config/knobs.ts';
import { validateConfig } from '../../../src/rl/config.ts';
import { getPreset, PRESET_NAMES } from '../../../src/rl/presets.ts';

describe('maxNonFiniteSteps', () => {
  it('defaults to 3 in every preset and in configs saved before it existed', () => {
    for (const name of PRESET_NAMES) expect(getPreset(name).maxNonFiniteSteps, name).toBe(3);
    const { maxNonFiniteSteps: _dropped, ...old } = getPreset('tiny-default');
    expect(validateConfig(old, 'old run config.json').maxNonFiniteSteps).toBe(3);
  });

  it('is validated with the field named', () => {
    const base = getPreset('tiny-default');
    expect(() => validateConfig({ maxNonFiniteSteps: -1 }, 'f.json', base)).toThrow(
      /f\.json: invalid config:\n {2}field "maxNonFiniteSteps" must be an integer in \[0, inf\), got -1/,
    );
    expect(() => validateConfig({ maxNonFiniteSteps: 1.5 }, 'f.json', base)).toThrow(
      /field "maxNonFiniteSteps" must be an integer/,
    );
    expect(validateConfig({ maxNonFiniteSteps: 0 }, 'f.json', base).maxNonFiniteSteps).toBe(0);
  });

  it('is a page knob and round-trips through the URL', () => {
    expect(knobByKey.get('maxNonFiniteSteps')?.group).toBe('Optimiser');
    const config = { ...getPreset('tiny-default'), maxNonFiniteSteps: 0 };
    const hash = encodeUrlState({ preset: 'tiny-default', config, view: 'curves', backend: 'auto' });
    expect(hash).toContain('maxNonFiniteSteps=0');
    const back = decodeUrlState(hash);
    expect(back.errors).toEqual([]);
    expect(back.config.maxNonFiniteSteps).toBe(0);
    expect(decodeUrlState('#preset=tiny-default&maxNonFiniteSteps=-2').errors.join('\n')).toMatch(/maxNonFiniteSteps/);
  });
});
