// The config's field table is the one place a field is declared: every entry, whatever it is, is checked here
// for its default validating, its values round-tripping through the page's link and the CLI's --set parser, the
// validator's error naming it with what it accepts, a section in docs/config.md, and a knob when it has `ui`.
// A new field is covered by adding its entry; nothing in this file names a field except where the link refuses a
// value on purpose.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knobs } from '../../../src/app/config/knobs.ts';
import { decodeUrlState, encodeUrlState } from '../../../src/app/url/url-state.ts';
import { parseSetFlag } from '../../../src/cli/config-flags.ts';
import {
  acceptedText,
  CONFIG_FIELDS,
  CONFIG_KEYS,
  CONFIG_SECTIONS,
  configDefaults,
  fieldToText,
  FIELD_SPECS,
  validateConfig,
  type ConfigKey,
  type ExperimentConfig,
  type FieldDef,
} from '../../../src/rl/config.ts';
import { getPreset, PRESET_NAMES } from '../../../src/rl/presets.ts';

const root = resolve(import.meta.dirname, '../../..');

/** Values the link deliberately does not reopen (a local folder, a dataset file): the page must pick them again. */
const LINK_REFUSES: Partial<Record<ConfigKey, unknown[]>> = {
  modelSource: ['local'],
  trainSet: ['file'],
  evalSet: ['file'],
};

/** Values of the field's kind to try, inside its range. */
function candidates(f: FieldDef): unknown[] {
  switch (f.kind) {
    case 'enum':
      return [...f.values];
    case 'bool':
      return [true, false];
    case 'string':
      return ['0.5', 'a b/c,d'];
    case 'strings':
      return [['q_proj', 'v_proj'], ['o_proj']];
    case 'int':
      return [f.min, f.min + 1, f.min + 7, f.max ?? f.min + 1000].filter((v) => Number.isFinite(v));
    case 'number':
      return [f.default + 0.125, f.default / 2, 0.5, 1e-7, 2.5];
    case 'number-or-null':
      return [null, 2.5, 1.75];
  }
}

/** A preset and a value of `key` different from the preset's that validates on it (cross-field rules included). */
function variant(key: ConfigKey): { preset: string; config: ExperimentConfig } {
  for (const value of candidates(FIELD_SPECS[key])) {
    if (LINK_REFUSES[key]?.includes(value)) continue;
    for (const preset of PRESET_NAMES) {
      const base = getPreset(preset);
      if (JSON.stringify(base[key]) === JSON.stringify(value)) continue;
      try {
        return { preset, config: validateConfig({ [key]: value }, 'variant', base) };
      } catch {
        // try the next preset
      }
    }
  }
  throw new Error(`no value of "${key}" validates on any preset`);
}

const keys = CONFIG_KEYS.filter((k) => k !== 'version');

describe('config field table', () => {
  it('the sections hold every field once, in the order of a config record', () => {
    expect(CONFIG_SECTIONS.flatMap((s) => Object.keys(s.fields))).toEqual(Object.keys(CONFIG_FIELDS));
    expect(Object.keys(configDefaults())).toEqual(Object.keys(CONFIG_FIELDS));
  });

  it('the defaults form a valid config, and each legacy value is a value of its field', () => {
    expect(validateConfig(configDefaults(), 'defaults')).toEqual(configDefaults());
    for (const [key, f] of Object.entries(FIELD_SPECS)) {
      if (f.legacy === undefined) continue;
      expect(() => validateConfig({ [key]: f.legacy }, `legacy ${key}`, configDefaults())).not.toThrow();
    }
  });

  it.each(keys)('%s round-trips through the page link', (key) => {
    const { preset, config } = variant(key);
    const state = decodeUrlState(encodeUrlState({ preset, config, view: 'curves', backend: 'auto' }));
    expect(state.errors).toEqual([]);
    expect(state.config).toEqual(config);
  });

  it.each(CONFIG_KEYS)('%s round-trips through --set key=value', (key) => {
    const { preset, config } =
      key === 'version' ? { preset: 'tiny-default', config: getPreset('tiny-default') } : variant(key);
    const [k, value] = parseSetFlag(`${key}=${fieldToText(key, config[key])}`);
    expect(k).toBe(key);
    expect(validateConfig({ [k]: value }, 'command line', getPreset(preset))).toEqual(config);
  });

  it.each(CONFIG_KEYS)('%s: a value of the wrong kind is refused, naming the field and what it accepts', (key) => {
    const f = FIELD_SPECS[key];
    const wrong = f.kind === 'string' ? 5 : f.kind === 'strings' ? 'q_proj' : 'not-a-value';
    const expected =
      key === 'version'
        ? 'field "version" must be 1'
        : `field "${key}" must be ${acceptedText(f)}, got ${JSON.stringify(wrong)}`;
    expect(() => validateConfig({ [key]: wrong }, 'x', getPreset('tiny-default'))).toThrow(expected);
  });

  it('every field has a section in docs/config.md', () => {
    const docs = readFileSync(join(root, 'docs/config.md'), 'utf8');
    expect(CONFIG_KEYS.filter((k) => !docs.includes(`\n### \`${k}\`\n`))).toEqual([]);
  });

  it('every knob is a table field with ui, and every field with ui has its knob', () => {
    for (const k of knobs) {
      const f = FIELD_SPECS[k.key];
      expect(f?.ui, k.key).toBeDefined();
      expect({ label: k.label, group: k.group, note: k.note }).toEqual({
        label: f.ui!.label,
        group: f.ui!.group,
        note: f.doc,
      });
    }
    expect(knobs.map((k) => k.key).toSorted()).toEqual(CONFIG_KEYS.filter((k) => FIELD_SPECS[k].ui).toSorted());
  });
});
