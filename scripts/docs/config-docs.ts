// docs/config.md as text, generated from the config's field table (src/rl/config/): per field its type and
// allowed values or range, default, page knob, doc with its paper / code source, details, and the value older
// configs read it as. Written by gen-config-docs.ts; tests/rl/config/docs.test.ts fails when the file is stale.
import { acceptedText, CONFIG_SECTIONS, type FieldDef } from '../../src/rl/config.ts';

export const CONFIG_DOCS_PATH = 'docs/config.md';
export const REGENERATE_COMMAND = 'npx tsx scripts/docs/gen-config-docs.ts';

function code(value: unknown): string {
  return `\`${JSON.stringify(value)}\``;
}

function pageText(f: FieldDef): string {
  if (!f.ui) return 'no knob';
  const range = f.ui.range ? `, range ${f.ui.range[0]} to ${f.ui.range[1]}` : '';
  return `${f.ui.group} › ${f.ui.label}${f.ui.advanced ? ' (advanced)' : ''}${range}`;
}

function fieldSection(key: string, f: FieldDef): string {
  const lines = [
    `### \`${key}\``,
    '',
    `${acceptedText(f)} · default ${code(f.default)} · page: ${pageText(f)}`,
    '',
    f.doc,
  ];
  if (f.details) lines.push('', f.details);
  if (f.legacy !== undefined) lines.push('', `A config saved before this field existed reads it as ${code(f.legacy)}.`);
  return lines.join('\n');
}

export function configDocs(): string {
  const parts = [
    '# Config fields',
    '',
    `<!-- Generated from src/rl/config/fields-*.ts by \`${REGENERATE_COMMAND}\`; edit the table, not this file. -->`,
    '',
    'A run is described by one flat config record (`ExperimentConfig`). Every field below can be set in a config file',
    '(`rema train --config run.json`, where `"extends": "<preset>"` picks the base and the other keys override it),',
    "on the command line (`--set key=value`, read by the field's type: lists comma-separated or as a JSON array, a",
    "quoted JSON string is that string) and in the page's link (`#preset=tiny-default&groupSize=4`). Values are",
    "checked against the type and range given here; defaults are the ReMA code's algorithm settings (ziyuwan/ReMA-public,",
    '`scripts/rl/rema/example_7b.sh` and `rema_trainer/config/ppo_trainer.yaml`) with sizes scaled down to the embedded',
    'tiny model; the presets (`src/rl/presets.ts`) state only what differs from them.',
    '',
    '| field | accepts | default |',
    '| --- | --- | --- |',
    ...CONFIG_SECTIONS.flatMap((s) =>
      Object.entries(s.fields as Record<string, FieldDef>).map(
        ([k, f]) =>
          `| [\`${k}\`](#${k.toLowerCase()}) | ${acceptedText(f).replaceAll('|', '\\|')} | ${code(f.default)} |`,
      ),
    ),
  ];
  for (const s of CONFIG_SECTIONS) {
    parts.push('', `## ${s.title}`);
    for (const [key, f] of Object.entries(s.fields as Record<string, FieldDef>)) parts.push('', fieldSection(key, f));
  }
  return `${parts.join('\n')}\n`;
}
