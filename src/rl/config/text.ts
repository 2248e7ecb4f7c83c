// A config field's value as text and back, by the field's kind: the page's link (app/url/url-state.ts) and the
// CLI's `--set key=value` both use it, so a value reads the same way wherever it is typed. Text that is not a
// value of the field's kind comes back unchanged, for validateConfig to name with the field and what it accepts.
import { FIELD_SPECS, type ConfigKey } from './table.ts';

/** A decimal number as JSON writes it (an optional sign, digits, fraction, exponent); "0x10", "" and "NaN" are not. */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function isConfigKey(key: string): key is ConfigKey {
  return Object.prototype.hasOwnProperty.call(FIELD_SPECS, key);
}

/** A field's value as text: lists comma-separated, null as "null", the rest as String() writes them. */
export function fieldToText(key: ConfigKey, value: unknown): string {
  if (FIELD_SPECS[key].kind === 'strings' && Array.isArray(value)) return value.join(',');
  return String(value);
}

/** Reads a field's text by the field's kind (numbers, true / false, null where allowed, comma-separated lists). */
export function fieldFromText(key: ConfigKey, text: string): unknown {
  const spec = FIELD_SPECS[key];
  switch (spec.kind) {
    case 'int':
    case 'number':
      return NUMBER.test(text.trim()) ? Number(text.trim()) : text;
    case 'number-or-null':
      if (text === 'null' || text === '') return null;
      return NUMBER.test(text.trim()) ? Number(text.trim()) : text;
    case 'bool':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'strings':
      return text === '' ? [] : text.split(',').map((t) => t.trim());
    case 'enum':
    case 'string':
      return text;
  }
}

function jsonOrText(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * A `--set key=value` value. For a config field, by its kind (fieldFromText), where a JSON string in quotes
 * ("score") is that string and, for a list field, a JSON array is that list. For other keys (e.g. the SFT
 * settings' sft.*), JSON when it parses, else the text itself. A number must be finite.
 */
export function setTextValue(key: string, raw: string): unknown {
  let value: unknown;
  if (!isConfigKey(key) || raw.startsWith('"') || (raw.startsWith('[') && FIELD_SPECS[key].kind === 'strings'))
    value = jsonOrText(raw);
  else value = fieldFromText(key, raw);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`--set ${key}=${raw}: not a finite number`);
  return value;
}
