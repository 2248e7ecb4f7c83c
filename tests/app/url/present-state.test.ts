// Presenter mode and the followed problem in the link: present=1&autoReset=200&follow=3&followEvery=2 round-trips,
// the keys are taken out before the config is read (no "unknown field" notice), and bad values are named.
import { describe, expect, it } from 'vitest';
import { PRESENT_DEFAULTS, splitPresentState, withPresentState } from '../../../src/app/url/present-state.ts';
import { decodeUrlState, encodeUrlState } from '../../../src/app/url/url-state.ts';

describe('present keys in the link', () => {
  it('round-trips and leaves the rest of the link to url-state', () => {
    const { rest, state, errors } = splitPresentState(
      '#preset=tiny-default&groupSize=4&present=1&autoReset=200&follow=3&followEvery=2',
    );
    expect(errors).toEqual([]);
    expect(state).toEqual({ presenting: true, autoReset: 200, followIndex: 3, followEvery: 2 });
    const decoded = decodeUrlState(rest);
    expect(decoded.errors).toEqual([]);
    expect(decoded.config.groupSize).toBe(4);
    const hash = withPresentState(
      encodeUrlState({ preset: decoded.preset, config: decoded.config, view: 'curves', backend: 'auto' }),
      state,
    );
    expect(hash).toContain('present=1&autoReset=200&follow=3&followEvery=2');
    expect(splitPresentState(hash).state).toEqual(state);
  });

  it('writes nothing for the defaults', () => {
    expect(withPresentState('#preset=tiny-default', PRESENT_DEFAULTS)).toBe('#preset=tiny-default');
    expect(splitPresentState('#preset=tiny-default').state).toEqual(PRESENT_DEFAULTS);
  });

  it('names a bad value and keeps the default for it', () => {
    const { state, errors } = splitPresentState('#present=yes&autoReset=-5&follow=1.5&followEvery=0');
    expect(state).toEqual(PRESENT_DEFAULTS);
    expect(errors).toEqual([
      'URL: present must be 1 or 0 (got "yes")',
      'URL: autoReset must be a whole number from 0 to 1000000 (got "-5")',
      'URL: follow must be a whole number from 0 to 1000000 (got "1.5")',
      'URL: followEvery must be a whole number from 1 to 1000000 (got "0")',
    ]);
  });
});

describe('the plan view in the link', () => {
  it('view=plan opens the plan-to-reasoning tab', () => {
    const decoded = decodeUrlState('#preset=tiny-default&view=plan');
    expect(decoded.errors).toEqual([]);
    expect(decoded.view).toBe('plan');
    expect(encodeUrlState({ preset: 'tiny-default', config: decoded.config, view: 'plan', backend: 'auto' })).toContain(
      'view=plan',
    );
  });
});
