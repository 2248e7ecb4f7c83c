// Export to the ReMA verl fork: the paper presets reproduce the fork's own scripts key by key, every key is one
// the fork's config has (or is written with Hydra's `+`), and every knob without an equivalent is listed.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import { exportVerl, hydraValue } from '../../src/rl/export-verl.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { VERL_FORK_COMMIT, VERL_FORK_KEYS } from '../../src/rl/verl-fork-keys.ts';

const fixtures = resolve(import.meta.dirname, '../fixtures/verl');

/** `key=value` lines of a fork script (tests/fixtures/verl/NOTICE), as a map from the written key (with `+`). */
function scriptOverrides(name: string): Map<string, string> {
  const lines = readFileSync(resolve(fixtures, name), 'utf8').trim().split('\n');
  return new Map(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** The command form's override lines, parsed back. */
function commandOverrides(command: string): Map<string, string> {
  const lines = command.split('\n').filter((l) => /^ {4}\+?[a-z_]+\.[\w.]+=/.test(l));
  return new Map(
    lines
      .map((l) => l.trim().replace(/ \\$/, ''))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** Hydra reads True/False, 1e-3 and 0.001 alike: compare values, not spellings. */
function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  const na = Number(a);
  return !Number.isNaN(na) && na === Number(b);
}

/** The paper preset as the fork runs it: old log-probs recomputed, no stop on non-finite steps. */
const paper: ExperimentConfig = { ...getPreset('paper-multiturn-7b'), oldLogProbs: 'score', maxNonFiniteSteps: 0 };

/** The script validates on the 7-benchmark mix, which the playground does not ship; the preset evaluates on MATH500. */
const VAL_FILES = 'data.val_files: script data/overall_math/test.parquet, ours data/MATH/test500.parquet';

describe('exportVerl', () => {
  it('paper-multiturn-7b reproduces scripts/rl/rema/example_7b.sh on every key it sets', () => {
    const e = exportVerl(paper);
    expect(e.module).toBe('verl.rema_trainer.main_ppo');
    expect(e.command).toContain('python -m verl.rema_trainer.main_ppo \\');
    const ours = commandOverrides(e.command);
    const script = scriptOverrides('rema.example_7b.overrides');
    expect(script.size).toBe(43);
    const differing = [...script]
      .filter(([k, v]) => !ours.has(k) || !sameValue(ours.get(k)!, v))
      .map(([k, v]) => `${k}: script ${v}, ours ${ours.get(k)}`);
    expect(differing).toEqual([VAL_FILES]);
    // the script's order first, then the keys it leaves at the fork's defaults
    expect([...ours.keys()].slice(0, script.size)).toEqual([...script.keys()]);
    expect(e.notPorted).toEqual([]);
  });

  it('separate parameters reproduce scripts/rl/separated_rema/example_7b.sh on the separated trainer', () => {
    const e = exportVerl({ ...paper, paramMode: 'separate', switchEvery: 10, startAgent: 'meta' });
    expect(e.trainer).toBe('rema_separated_trainer');
    expect(e.command).toContain('python -m verl.rema_separated_trainer.main_ppo \\');
    const ours = commandOverrides(e.command);
    const script = scriptOverrides('separated_rema.example_7b.overrides');
    expect(script.get('algorithm.switch_agent.model_paths')).toBe('[$MODEL_PATH,$MODEL_PATH]');
    const differing = [...script]
      .filter(([k, v]) => !ours.has(k) || !sameValue(ours.get(k)!, v))
      .map(([k, v]) => `${k}: script ${v}, ours ${ours.get(k)}`);
    expect(differing).toEqual([VAL_FILES]);
    expect(ours.get('algorithm.switch_agent.start_agent')).toBe('meta_thinking');
  });

  it('writes every key the fork config has plainly and every other key with +, for every preset', () => {
    expect(VERL_FORK_COMMIT).toMatch(/^24b5b47[0-9a-f]{33}$/);
    const trainers = new Set<string>();
    for (const name of [
      'paper-multiturn-7b',
      'rema-multiturn',
      'tiny-default',
      'ablation-separate-params',
      'ablation-token-ratio',
      'rema-singleturn',
    ]) {
      const e = exportVerl(getPreset(name));
      trainers.add(e.trainer);
      const known = new Set(VERL_FORK_KEYS[e.trainer]);
      for (const [written] of commandOverrides(e.command)) {
        const key = written.replace(/^\+/, '');
        expect(written.startsWith('+'), `${name}: ${written}`).toBe(!known.has(key));
      }
      // no key the fork's actor never reads (the removed clip_ratio_low / clip_ratio_high)
      expect(e.command).not.toMatch(/clip_ratio_(low|high)/);
      // the shared trainer's config has no switch_agent section: the separated trainer carries it
      if (e.trainer === 'rema_trainer') expect(e.command).not.toContain('switch_agent');
    }
    expect(trainers).toContain('rema_trainer');
  });

  it('the YAML form holds the same keys and values, placeholders filled', () => {
    const e = exportVerl(paper);
    const y = parse(e.yaml) as Record<string, Record<string, Record<string, unknown>>>;
    expect(y).toEqual(e.keys);
    expect(y.actor_rollout_ref.model.path).toBe('Qwen/Qwen2.5-7B');
    expect(y.reward_model).toEqual({ reward_manager: 'rema', mask_unfinished_reward: true });
    expect(y.actor_rollout_ref.actor).toMatchObject({
      use_dynamic_bsz: true,
      ppo_mini_batch_size: 512,
      ppo_micro_batch_size_per_gpu: 8,
    });
  });

  it('counts mini-batches as the fork does: ceil(train_batch_size / ppo_mini_batch_size) optimiser steps', () => {
    const p = (m: number, b = 128) =>
      exportVerl({ ...paper, miniBatches: m, problemsPerStep: b }).keys as {
        actor_rollout_ref: { actor: { ppo_mini_batch_size: number } };
      };
    for (const m of [1, 2, 4, 8]) expect(Math.ceil(128 / p(m).actor_rollout_ref.actor.ppo_mini_batch_size)).toBe(m);
    expect(p(4, 8).actor_rollout_ref.actor.ppo_mini_batch_size).toBe(2);
    expect(exportVerl({ ...paper, miniBatches: 3, problemsPerStep: 8 }).notPorted.join('\n')).toMatch(
      /miniBatches 3 does not divide problemsPerStep 8/,
    );
  });

  it('lists the knobs that do not port instead of mapping them silently', () => {
    const joined = (c: Partial<ExperimentConfig>) => exportVerl({ ...paper, ...c }).notPorted.join('\n');
    expect(joined({ clipLow: 0.2, clipHigh: 0.28 })).toMatch(/asymmetric clip \(clipLow 0.2, clipHigh 0.28\)/);
    expect(joined({ ratio: 'token', aggregation: 'trajectory' })).toMatch(
      /aggregation "trajectory" with the token ratio/,
    );
    expect(joined({ ratio: 'token', aggregation: 'seq-mean-token-mean' })).toBe('');
    expect(joined({ ratio: 'turn-geometric', aggregation: 'token-mean' })).toMatch(
      /raises for agg_mode token with clip_mode turn/,
    );
    expect(joined({ ratio: 'turn-arithmetic' })).toMatch(/turn-arithmetic/);
    expect(joined({ aggregation: 'seq-mean-token-sum' })).toMatch(/aggregation "seq-mean-token-sum"/);
    expect(joined({ stdScaling: 'none', finetune: 'lora' })).toMatch(/finetune "lora"[\s\S]*stdScaling "none"/);
    expect(joined({ mode: 'single-turn' })).toMatch(/mode "single-turn"/);
    expect(joined({ klBeta: 0.01, klPlacement: 'reward' })).toMatch(/klPlacement "reward" .*exported as the KL loss/);
    expect(joined({ klBeta: 0.01, klPlacement: 'loss' })).toBe('');
    const token = exportVerl({
      ...paper,
      ratio: 'token',
      aggregation: 'seq-mean-token-mean',
      klBeta: 0.01,
      klEstimator: 'k1',
    });
    expect(token.keys).toMatchObject({
      actor_rollout_ref: {
        actor: {
          clip_mode: 'token',
          agg_mode: 'trajectory',
          use_kl_loss: true,
          kl_loss_coef: 0.01,
          kl_loss_type: 'kl',
        },
      },
    });
  });

  it('writes values in Hydra override syntax', () => {
    expect(hydraValue(true)).toBe('True');
    expect(hydraValue(1e-6)).toBe('1e-6');
    expect(hydraValue(0.2)).toBe('0.2');
    expect(hydraValue(['console', 'wandb'])).toBe('[console,wandb]');
    expect(hydraValue('data/MATH/x.parquet')).toBe('data/MATH/x.parquet');
    expect(hydraValue('a b')).toBe("'a b'");
  });
});
