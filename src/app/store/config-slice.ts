// Config slice: the experiment config shown in the knob panel. Every edit is validated by the RL core's
// validateConfig before it is accepted; a rejected edit keeps the old value and shows the message next to the
// knob. Edits take effect on Reset (a running trainer keeps the config it was built with).
import type { StateCreator } from 'zustand/vanilla';
import { validateConfig } from '../../rl/config.ts';
import { getPreset } from '../../rl/presets.ts';
import type { ConfigSlice, PlaygroundState } from './types.ts';

export function createConfigSlice(
  initial: Pick<ConfigSlice, 'config' | 'preset'>,
): StateCreator<PlaygroundState, [], [], ConfigSlice> {
  return (set, get) => ({
    config: initial.config,
    preset: initial.preset,
    configDirty: false,
    activeConfig: initial.config,
    configErrors: {},

    setConfigField(path, value) {
      try {
        const config = validateConfig({ [path]: value }, 'config panel', get().config);
        const configErrors = Object.fromEntries(Object.entries(get().configErrors).filter(([k]) => k !== path));
        set({ config, configErrors, configDirty: true });
      } catch (e) {
        set({
          configErrors: {
            ...get().configErrors,
            [path]: (e as Error).message.replace(/^config panel: invalid config:\s*/, ''),
          },
        });
      }
    },
    applyPreset(name) {
      const preset = getPreset(name);
      // the model stays: a preset changes the experiment, not the weights the user loaded
      const { modelSource, model } = get().config;
      const keepModel = preset.modelSource === 'embedded' && modelSource !== 'embedded';
      set({
        preset: name,
        config: keepModel ? { ...preset, modelSource, model } : preset,
        configErrors: {},
        configDirty: true,
      });
    },
    replaceConfig(config) {
      set({ config: validateConfig(config, 'config', undefined), configErrors: {}, configDirty: true });
    },
  });
}
