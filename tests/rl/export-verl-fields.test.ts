// The verl export walks the whole config table: changing any field from the paper's multi-turn setting either
// changes the exported keys or changes a "knobs that do not port" line naming that field, so nothing a run here
// does differently is dropped without a word.
import { describe, expect, it } from 'vitest';
import { FIELD_SPECS, type ExperimentConfig } from '../../src/rl/config.ts';
import type { FieldDef } from '../../src/rl/config/field.ts';
import { exportVerl } from '../../src/rl/export-verl.ts';
import { getPreset } from '../../src/rl/presets.ts';

type Key = keyof ExperimentConfig;

/** The paper's multi-turn script, which exports with no line at all but the divergence stop. */
const paper: ExperimentConfig = { ...getPreset('paper-multiturn-7b'), oldLogProbs: 'score' };

/** Fields that act only together with another: the setting in which a run here uses them. */
const ACTIVE_WITH: Partial<Record<Key, Partial<ExperimentConfig>>> = {
  trainFile: { trainSet: 'file' },
  evalFile: { evalSet: 'file' },
  loraRank: { finetune: 'lora' },
  loraAlpha: { finetune: 'lora' },
  loraTargets: { finetune: 'lora' },
  switchEvery: { paramMode: 'separate' },
  startAgent: { paramMode: 'separate' },
  filterEpsMin: { filterGroups: true },
  filterEpsMax: { filterGroups: true },
  probeSamples: { mode: 'single-turn', paramMode: 'separate', filterGroups: true, phaseEpochs: 4 },
  klPlacement: { klBeta: 0.01 },
  lossNormLength: { aggregation: 'seq-mean-token-sum-norm' },
};

/** Values the fork takes alike with the paper's, so neither the keys nor a line may change (with the reason). */
const SAME_IN_FORK: Partial<Record<Key, { values: unknown[]; why: string }>> = {
  modelSource: { values: ['local'], why: 'verl reads a hub id or a local folder as actor_rollout_ref.model.path' },
  prompts: { values: ['paper'], why: "the paper's multi-turn prompts are the code's (App. G.2.2)" },
};

function inRange(f: FieldDef, v: number): boolean {
  if (f.kind !== 'int' && f.kind !== 'number' && f.kind !== 'number-or-null') return false;
  if (!Number.isFinite(v) || (f.kind === 'int' && !Number.isInteger(v))) return false;
  if (v < f.min || ('minExclusive' in f && f.minExclusive && v === f.min)) return false;
  if ('max' in f && f.max !== undefined && (v > f.max || ('maxExclusive' in f && f.maxExclusive && v === f.max)))
    return false;
  return true;
}

/** A few valid values other than `current`, from the field's spec. */
function alternatives(f: FieldDef, current: unknown): unknown[] {
  switch (f.kind) {
    case 'enum':
      return f.values.filter((v) => v !== current);
    case 'bool':
      return [!current];
    case 'string':
      return [`${String(current)}-other`];
    case 'strings':
      return [['q_proj'], [...(current as string[]), 'lm_head']];
    case 'number-or-null': {
      const n = current === null ? f.min + 1 : (current as number) + 1;
      return current === null ? [n] : [null, n];
    }
    default: {
      const c = current as number;
      const max = 'max' in f && f.max !== undefined ? f.max : c * 2 + 2;
      const candidates = [f.min, c + 1, c / 2, (f.min + max) / 2, max];
      return [...new Set(candidates)].filter((v) => v !== c && inRange(f, v)).slice(0, 3);
    }
  }
}

/** What a reader of the export sees of one field: the resolved keys and the lines that name it. */
function view(c: ExperimentConfig, field: string) {
  const e = exportVerl(c);
  return { keys: JSON.stringify(e.keys), lines: e.notPorted.filter((l) => l.includes(field)) };
}

describe('verl export over the whole field table', () => {
  it('the paper preset exports with only the divergence stop unported', () => {
    expect(exportVerl(paper).notPorted).toEqual([
      'maxNonFiniteSteps 3: verl has no stop for steps with NaN / infinite numbers (a diverged run trains on)',
    ]);
  });

  const fields = Object.entries(FIELD_SPECS) as [Key, FieldDef][];
  it.each(fields.map(([k]) => k))('%s is exported or named as not ported', (key) => {
    const f = FIELD_SPECS[key] as FieldDef;
    const base = { ...paper, ...ACTIVE_WITH[key] } as ExperimentConfig;
    const before = view(base, key);
    const same = SAME_IN_FORK[key];
    const silent: string[] = [];
    for (const v of alternatives(f, base[key])) {
      const after = view({ ...base, [key]: v } as ExperimentConfig, key);
      const changed = after.keys !== before.keys || JSON.stringify(after.lines) !== JSON.stringify(before.lines);
      if (same?.values.includes(v)) expect(changed, `${key} ${JSON.stringify(v)}: ${same.why}`).toBe(false);
      else if (!changed) silent.push(JSON.stringify(v));
    }
    expect(silent, `${key}: values that change a run here but neither the export nor a line`).toEqual([]);
  });

  it('names what tiny-default and the single-turn presets do not carry', () => {
    const tiny = exportVerl(getPreset('tiny-default')).notPorted.join('\n');
    expect(tiny).toMatch(/groupStatsRows "trained"/);
    expect(tiny).toMatch(/overflowAnswer "previous"/);
    const json = exportVerl(getPreset('tiny-json-actions')).notPorted.join('\n');
    expect(json).toMatch(/metaActions "json"/);
    const single = exportVerl(getPreset('paper-singleturn-7b')).notPorted.join('\n');
    for (const word of ['phaseEpochs 4', 'planSamples 4', 'filterGroups', 'klPlacement "reward"'])
      expect(single).toContain(word);
    const set = exportVerl({
      ...paper,
      endTokenTarget: 'template',
      logprobTemperature: 'one',
      regularizerMean: 'aggregation',
      singleTurnReward: 'consistency',
    }).notPorted.join('\n');
    for (const word of ['endTokenTarget', 'logprobTemperature', 'regularizerMean', 'singleTurnReward'])
      expect(set).toContain(word);
  });

  it("maps math500 to the fork's MATH500 parquet and gsm8k to the mixed test file with a line", () => {
    const files = (c: Partial<ExperimentConfig>) =>
      (exportVerl({ ...paper, ...c }).keys as { data: { train_files: string; val_files: string } }).data;
    expect(files({}).val_files).toBe('data/MATH/test500.parquet');
    expect(files({ evalSet: 'gsm8k' }).val_files).toBe('data/overall_math/test.parquet');
    expect(exportVerl({ ...paper, evalSet: 'gsm8k' }).notPorted.join('\n')).toMatch(/gsm8k: .*7-benchmark mix/);
  });
});
