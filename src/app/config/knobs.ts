// The page's knobs, derived from the config's field table (src/rl/config/fields-*.ts): every field with a `ui`
// entry becomes a knob in its group, its control following the field's kind (enum: select with the field's
// values; bool: checkbox; int / number: number input over the entry's practical range, else the validation
// range; number-or-null: number input, empty for null; string: text; strings: comma-separated list) and its
// hover note the field's doc. Read by the config panel.
import { CONFIG_GROUPS, FIELD_SPECS, type ConfigGroup, type ConfigKey, type FieldDef } from '../../rl/config.ts';

export type KnobKey = Exclude<ConfigKey, 'version'>;

export type KnobControl =
  | { kind: 'select'; options: readonly string[] }
  | { kind: 'number'; min: number; max: number; step: number; integer: boolean }
  /** a number, or empty for null (dual clip off) */
  | { kind: 'nullable-number'; min: number; max: number; step: number }
  | { kind: 'boolean' }
  | { kind: 'text' }
  /** comma-separated list */
  | { kind: 'list' };

export interface Knob {
  key: KnobKey;
  label: string;
  group: KnobGroup;
  control: KnobControl;
  note: string;
  /** hidden unless the advanced toggle is on (keeps the first view short) */
  advanced?: boolean;
}

export const knobGroups = CONFIG_GROUPS;
export type KnobGroup = ConfigGroup;

/** A number control's range: the entry's practical range, else its validation range (which must then be finite). */
function numberRange(key: string, field: FieldDef & { min: number; max?: number }): [number, number] {
  const [min, max] = field.ui?.range ?? [field.min, field.max ?? Number.POSITIVE_INFINITY];
  if (!Number.isFinite(min) || !Number.isFinite(max))
    throw new Error(`config field "${key}": a knob over an unbounded range needs ui.range`);
  return [min, max];
}

function controlOf(key: string, field: FieldDef): KnobControl {
  switch (field.kind) {
    case 'enum':
      return { kind: 'select', options: field.values };
    case 'bool':
      return { kind: 'boolean' };
    case 'string':
      return { kind: 'text' };
    case 'strings':
      return { kind: 'list' };
    case 'int': {
      const [min, max] = numberRange(key, field);
      return { kind: 'number', min, max, step: field.ui?.step ?? 1, integer: true };
    }
    case 'number': {
      const [min, max] = numberRange(key, field);
      return { kind: 'number', min, max, step: field.ui?.step ?? 1, integer: false };
    }
    case 'number-or-null': {
      const [min, max] = numberRange(key, field);
      return { kind: 'nullable-number', min, max, step: field.ui?.step ?? 1 };
    }
  }
}

/** Every field with a `ui` entry, grouped in CONFIG_GROUPS order, in table order within a group. */
export const knobs: readonly Knob[] = CONFIG_GROUPS.flatMap((group) =>
  Object.entries(FIELD_SPECS).flatMap(([key, field]): Knob[] => {
    if (field.ui?.group !== group) return [];
    const knob: Knob = {
      key: key as KnobKey,
      label: field.ui.label,
      group,
      control: controlOf(key, field),
      note: field.doc,
    };
    if (field.ui.advanced) knob.advanced = true;
    return [knob];
  }),
);

export const knobByKey: ReadonlyMap<string, Knob> = new Map(knobs.map((k) => [k.key, k]));
