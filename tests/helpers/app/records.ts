// Builders of plain metrics and rollout records for the app tests (records are data, not mocks: the trainer
// emits exactly these shapes).
import type { MetricsRecord, RolloutRecord } from '../../../src/rl/metrics.ts';

export function metrics(step: number, over: Partial<MetricsRecord> = {}): MetricsRecord {
  return {
    step,
    reward_mean: 0.5,
    reward_std: 0.4,
    accuracy: 0.5,
    kl: 0,
    entropy: 1.2,
    clip_frac_low: 0,
    clip_frac_high: 0,
    grad_norm: 1,
    frac_zero_std_groups: 0.1,
    len_meta_mean: 20,
    len_reason_mean: 30,
    turns_mean: 2,
    finish_reasons: { finished: 6, reach_max_turn: 1, stop_when_truncated: 1, completion_token_exceeded: 0 },
    time_s: { rollout: 1, reward: 0.01, old: 0, ref: 0, adv: 0, update: 0.5, eval: 0 },
    lr: 2e-4,
    ...over,
  };
}

export function rollout(step: number, group: number, sample: number, over: Partial<RolloutRecord> = {}): RolloutRecord {
  return {
    step,
    group,
    sample,
    question: `Ann has ${group + 3} apples and buys 2 more. How many?`,
    gold: String(group + 5),
    turns: [
      { role: 'meta', text: 'First add the two amounts.', tokens: 6, truncated: false },
      { role: 'reasoning', text: `${group + 3} + 2 = \\boxed{${group + 5}}`, tokens: 8, truncated: false },
      { role: 'meta', text: 'Confirm the answer [FINISH]', tokens: 5, truncated: false },
      { role: 'reasoning', text: `\\boxed{${group + 5}}`, tokens: 4, truncated: false },
    ],
    reward: sample % 2,
    advantage: sample % 2 === 1 ? 1 : -1,
    correct: sample % 2 === 1,
    finish_reason: 'finished',
    extracted: String(group + 5),
    ...over,
  };
}
