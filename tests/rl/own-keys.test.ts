// Names that are keys of every JavaScript object ("constructor", "toString", "hasOwnProperty", "__proto__",
// "valueOf") are not presets, fields, settings, data sets or architectures: every table a user's string indexes is
// read through its own properties only (the page's #preset=, the CLI's --preset / --set, "extends" in a config).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeUrlState, encodeUrlState } from '../../src/app/url/url-state.ts';
import { configFromFlags } from '../../src/cli/config-flags.ts';
import { sftFromFlags } from '../../src/cli/sft.ts';
import { parseHfConfig } from '../../src/engine/io/hf-config.ts';
import { validateConfig } from '../../src/rl/config.ts';
import { getPreset, resolveConfig } from '../../src/rl/presets.ts';
import { getSftPreset } from '../../src/rl/sft-presets.ts';

const NAMES = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf', 'isPrototypeOf'];

describe('built-in object keys as user strings', () => {
  it.each(NAMES)('%s is an unknown preset everywhere a preset is named', async (name) => {
    expect(() => getPreset(name)).toThrow(`unknown preset "${name}"`);
    expect(() => getSftPreset(name)).toThrow(`unknown SFT preset "${name}"`);
    expect(() => resolveConfig(JSON.parse(`{"extends": ${JSON.stringify(name)}}`), 'c.json')).toThrow(
      `unknown preset "${name}"`,
    );
    await expect(configFromFlags({ preset: name })).rejects.toThrow(`unknown preset "${name}"`);
    expect(() => sftFromFlags({ preset: name })).toThrow(`unknown SFT preset "${name}"`);
    const page = decodeUrlState(`#preset=${encodeURIComponent(name)}`);
    expect(page.preset).toBe('tiny-default');
    expect(page.errors.join('\n')).toContain(`unknown preset`);
    expect(structuredClone(page.config)).toEqual(page.config);
    expect(encodeUrlState({ ...page, preset: name })).toContain('preset=tiny-default');
  });

  it.each(NAMES)('%s is an unknown config field, SFT setting and architecture', (name) => {
    expect(() =>
      validateConfig(JSON.parse(`{${JSON.stringify(name)}: 1}`), 'c.json', getPreset('tiny-default')),
    ).toThrow(`unknown field "${name}"`);
    expect(() => sftFromFlags({ set: [`sft.${name}=1`] })).toThrow(`unknown SFT setting "${name}"`);
    const tiny = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../public/models/tiny-rema/config.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(() => parseHfConfig({ ...tiny, architectures: [name] })).toThrow(`unsupported architecture "${name}"`);
  });
});
