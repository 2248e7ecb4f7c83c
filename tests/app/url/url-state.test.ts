// The URL holds the preset, config edits, view and backend; reading it validates with the RL core.
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../../src/rl/presets.ts';
import { decodeUrlState, encodeUrlState } from '../../../src/app/url/url-state.ts';
import { syncUrl } from '../../../src/app/url/url-sync.ts';
import { createPlaygroundStore } from '../../../src/app/store/create-store.ts';

describe('URL state', () => {
  it('round-trips edits of every kind of field', () => {
    const base = getPreset('rema-multiturn');
    const config = {
      ...base,
      groupSize: 4,
      ratio: 'token' as const,
      dualClip: null,
      stopWhenTruncated: false,
      loraTargets: ['q_proj', 'v_proj'],
      lr: 1.5e-4,
    };
    const hash = encodeUrlState({ preset: 'rema-multiturn', config, view: 'rollouts', backend: 'wasm' });
    expect(hash).toContain('groupSize=4');
    expect(hash).not.toContain('maxTurns');
    const back = decodeUrlState(hash);
    expect(back.errors).toEqual([]);
    expect(back.config).toEqual(config);
    expect(back.preset).toBe('rema-multiturn');
    expect(back.view).toBe('rollouts');
    expect(back.backend).toBe('wasm');
  });

  it('a link written when the WebAssembly backend was called "cpu" still opens on it', () => {
    const old = decodeUrlState('#preset=tiny-default&backend=cpu');
    expect(old.errors).toEqual([]);
    expect(old.backend).toBe('wasm');
    expect(
      encodeUrlState({ preset: 'tiny-default', config: old.config, view: 'curves', backend: old.backend }),
    ).toContain('backend=wasm');
  });

  it('an empty hash gives the default preset', () => {
    const s = decodeUrlState('');
    expect(s.config).toEqual(getPreset('tiny-default'));
    expect(s.view).toBe('curves');
    expect(s.errors).toEqual([]);
  });

  it('rejects bad values with the field named and falls back to the preset', () => {
    const s = decodeUrlState('#preset=tiny-default&groupSize=-3&view=nope&bogus=1');
    expect(s.config).toEqual(getPreset('tiny-default'));
    expect(s.view).toBe('curves');
    const text = s.errors.join('\n');
    expect(text).toContain('groupSize');
    expect(text).toContain('unknown field "bogus"');
    expect(text).toContain('unknown view "nope"');
  });

  it('carries the inspector colouring (card or token mode); a bad one is explained and falls back', () => {
    const config = getPreset('tiny-default');
    expect(
      encodeUrlState({ preset: 'tiny-default', config, view: 'rollouts', backend: 'auto', coloring: 'advantage' }),
    ).not.toContain('colour');
    const hash = encodeUrlState({
      preset: 'tiny-default',
      config,
      view: 'rollouts',
      backend: 'auto',
      coloring: 'token-ratio',
    });
    expect(hash).toContain('colouring=token-ratio');
    expect(hash).not.toContain('colour=');
    expect(decodeUrlState(hash).coloring).toBe('token-ratio');
    expect(decodeUrlState('#preset=tiny-default').coloring).toBe('advantage');
    const bad = decodeUrlState('#preset=tiny-default&colouring=rainbow');
    expect(bad.coloring).toBe('advantage');
    expect(bad.errors.join()).toContain(
      'colouring must be one of advantage, reward, none, token-advantage, token-ratio, token-clip (got "rainbow")',
    );
  });

  it("an old link's colour key still sets the colouring, without a notice; it is written back as colouring", () => {
    const old = decodeUrlState('#preset=tiny-default&view=rollouts&colour=token-clip');
    expect(old.coloring).toBe('token-clip');
    expect(old.errors).toEqual([]);
    const again = encodeUrlState({
      preset: old.preset,
      config: old.config,
      view: old.view,
      backend: old.backend,
      coloring: old.coloring,
    });
    expect(again).toContain('colouring=token-clip');
    expect(again).not.toContain('colour=');
    // a link with both (hand-edited) follows the current name
    expect(decodeUrlState('#preset=tiny-default&colour=reward&colouring=none').coloring).toBe('none');
  });

  it("carries the curves' smoothing and x axis; bad ones are explained and fall back", () => {
    const config = getPreset('tiny-default');
    const plain = encodeUrlState({
      preset: 'tiny-default',
      config,
      view: 'curves',
      backend: 'auto',
      smooth: 0,
      x: 'step',
    });
    expect(plain).not.toMatch(/smooth=|x=/);
    const hash = encodeUrlState({
      preset: 'tiny-default',
      config,
      view: 'curves',
      backend: 'auto',
      smooth: 0.9,
      x: 'minutes',
    });
    expect(decodeUrlState(hash)).toMatchObject({ smoothing: 0.9, chartX: 'minutes', errors: [] });
    expect(decodeUrlState(plain)).toMatchObject({ smoothing: 0, chartX: 'step' });
    const bad = decodeUrlState('#preset=tiny-default&smooth=0.5&x=hours');
    expect(bad).toMatchObject({ smoothing: 0, chartX: 'step' });
    expect(bad.errors.join('\n')).toContain('smooth must be one of 0, 0.6, 0.9 (got "0.5")');
    expect(bad.errors.join('\n')).toContain('x must be step or minutes (got "hours")');
  });

  it("a link with trainSet=file falls back to the preset's train set, keeps the other edits, and says to pick the file again", () => {
    const s = decodeUrlState(
      '#preset=tiny-default&trainSet=file&trainFile=/home/me/train.jsonl&groupSize=4&evalSet=file',
    );
    expect(s.config.trainSet).toBe(getPreset('tiny-default').trainSet);
    expect(s.config.trainFile).toBe('');
    expect(s.config.evalSet).toBe(getPreset('tiny-default').evalSet);
    expect(s.config.groupSize).toBe(4);
    const text = s.errors.join('\n');
    expect(text).toContain(
      'trainSet=file (trainFile "/home/me/train.jsonl") cannot be reopened from a link: the file must be picked again',
    );
    expect(text).toContain('using the train set "tiny-arith" instead');
    expect(text).toContain('evalSet=file cannot be reopened');
  });

  it('thousands of unknown keys give one short line: the count, three names and how many more', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `junk${i}`);
    const s = decodeUrlState(`#preset=tiny-default&groupSize=4&${keys.map((k) => `${k}=1`).join('&')}`);
    expect(s.errors).toEqual(['URL: 5000 unknown keys ignored: "junk0", "junk1", "junk2" and 4997 more']);
    expect(s.config.groupSize).toBe(4);
    // a key (or a bad value) tens of kilobytes long is quoted short
    const long = decodeUrlState(`#preset=tiny-default&view=${'x'.repeat(50_000)}&${'y'.repeat(50_000)}=1`);
    expect(long.errors.join('\n').length).toBeLessThan(300);
  });

  it('carries the base weights precision (weights=f32; auto is not written); a bad one is explained and falls back', () => {
    const config = getPreset('tiny-default');
    const f32 = encodeUrlState({ preset: 'tiny-default', config, view: 'curves', backend: 'webgpu', weights: 'f32' });
    expect(f32).toContain('weights=f32');
    expect(decodeUrlState(f32)).toMatchObject({ backend: 'webgpu', weights: 'f32', errors: [] });
    const auto = encodeUrlState({ preset: 'tiny-default', config, view: 'curves', backend: 'webgpu', weights: 'auto' });
    expect(auto).not.toContain('weights');
    expect(decodeUrlState(auto).weights).toBe('auto');
    const bad = decodeUrlState('#preset=tiny-default&weights=f8');
    expect(bad.weights).toBe('auto');
    expect(bad.errors).toEqual(['URL: weights must be auto or f32 (got "f8")']);
  });

  it('a link to a local folder falls back to the embedded model and says why', () => {
    const s = decodeUrlState('#preset=tiny-default&modelSource=local&model=my-model');
    expect(s.config.modelSource).toBe('embedded');
    expect(s.errors.join()).toContain('my-model');
  });
});

describe('URL sync', () => {
  it('rewrites the hash on config, preset and view changes, and the hash reproduces the setup', () => {
    const store = createPlaygroundStore(
      {
        createClient: () => ({ send: () => {}, subscribe: () => () => {}, terminate: () => {} }),
        openDb: async () => {
          throw new Error('unused');
        },
      },
      {
        config: getPreset('tiny-default'),
        preset: 'tiny-default',
        view: 'curves',
        backendPreference: 'auto',
        modelSpec: { kind: 'embedded', name: 'tiny-rema' },
      },
    );
    const written: string[] = [];
    const target = {
      get hash() {
        return written.at(-1) ?? '';
      },
      replace: (h: string) => written.push(h),
    };
    syncUrl(store, target);
    store.getState().setConfigField('groupSize', 4);
    store.getState().setView('rollouts');
    store.getState().setConfigField('groupSize', -1); // rejected: no new hash
    expect(written).toHaveLength(2);
    const back = decodeUrlState(written.at(-1)!);
    expect(back.config.groupSize).toBe(4);
    expect(back.view).toBe('rollouts');
    store.getState().applyPreset('ablation-token-ratio');
    expect(decodeUrlState(written.at(-1)!).config).toEqual(getPreset('ablation-token-ratio'));
    // the inspector's token colouring is part of the link too
    store.getState().setColoring('token-clip');
    expect(decodeUrlState(written.at(-1)!).coloring).toBe('token-clip');
    // and the curves' options
    store.getState().setChartSmoothing(0.6);
    store.getState().setChartX('minutes');
    expect(decodeUrlState(written.at(-1)!)).toMatchObject({ smoothing: 0.6, chartX: 'minutes' });
    // and the weights' precision
    store.getState().setWeightPrecision('f32');
    expect(decodeUrlState(written.at(-1)!).weights).toBe('f32');
  });
});
