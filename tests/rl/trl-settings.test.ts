// trlSettings: what it cannot map is named, and the TRL arguments follow the config (the loss-side mapping itself is
// checked against TRL's own results in trl-parity.test.ts).
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/presets.ts';
import { trlSettings, TRL_ADV_EPS } from '../../src/rl/trl-settings.ts';

describe('trlSettings', () => {
  it('names what the presets do that TRL cannot: REINFORCE++ and the KL in the reward, multi-turn ReMA', () => {
    const vrp = trlSettings(getPreset('vrp-rl')).unmatched.join('\n');
    expect(vrp).toMatch(/advantage "reinforce\+\+"/);
    expect(vrp).toMatch(/klPlacement "reward"/);
    expect(vrp).toMatch(/advEps 0.000001/);
    const tiny = trlSettings(getPreset('tiny-default')).unmatched.join('\n');
    expect(tiny).toMatch(/maxTurns/);
    expect(tiny).toMatch(/aggregation "trajectory"/);
  });

  it('a single-turn GRPO config with a token-mean loss and k3 KL maps with nothing left over', () => {
    const config = {
      ...getPreset('vrp-rl'),
      advantage: 'grpo' as const,
      advEps: TRL_ADV_EPS,
      klPlacement: 'loss' as const,
      klEstimator: 'k3' as const,
      problemsPerStep: 8,
      groupSize: 8,
    };
    const s = trlSettings(config);
    expect(s.unmatched).toEqual([]);
    expect(s.grpoConfig).toMatchObject({
      loss_type: 'dapo',
      beta: config.klBeta,
      use_bias_correction_kl: false,
      num_generations: 8,
      per_device_train_batch_size: 64,
      max_completion_length: config.maxTokensPerTurn + 1,
      learning_rate: config.lr,
    });
    expect(s.loraConfig).toMatchObject({ r: config.loraRank, lora_alpha: config.loraAlpha });
  });

  it('off-policy steps name the dual clip and the log-ratio cap; a k1 KL in the loss is named', () => {
    const base = {
      ...getPreset('vrp-rl'),
      advantage: 'grpo' as const,
      advEps: TRL_ADV_EPS,
      klPlacement: 'loss' as const,
    };
    const off = trlSettings({ ...base, klEstimator: 'k3', ppoEpochs: 2 }).unmatched.join('\n');
    expect(off).toMatch(/dualClip 3/);
    expect(off).toMatch(/logRatioClip 3/);
    expect(trlSettings({ ...base, klEstimator: 'k1' }).unmatched.join('\n')).toMatch(/klEstimator "k1"/);
  });
});
