// The log-prob stages of a step: the trained positions of every row scored under the rollout weights (pi_old,
// needed when the ratio can leave 1) and with the adapters off (the reference, needed when klBeta > 0), at the
// temperature the loss divides the logits by. Each fills one field of the rows.
import type { Policy } from '../../engine/policy/policy.ts';
import type { ExperimentConfig } from '../config.ts';
import type { TrainRow } from './rows.ts';
import { logprobTemperature, scoreRequests } from './update.ts';

/** Fills row.oldLogp: log pi_old of each row's trained tokens (one value per position). */
export async function oldLogProbs(policy: Policy, config: ExperimentConfig, rows: readonly TrainRow[]): Promise<void> {
  const res = await policy.score(scoreRequests(rows), { temperature: logprobTemperature(config) });
  rows.forEach((r, i) => (r.oldLogp = res[i].logprobs));
}

/** Fills row.refLogp: log pi_ref of each row's trained tokens, the adapters off. */
export async function refLogProbs(policy: Policy, config: ExperimentConfig, rows: readonly TrainRow[]): Promise<void> {
  const res = await policy.score(scoreRequests(rows), { reference: true, temperature: logprobTemperature(config) });
  rows.forEach((r, i) => (r.refLogp = res[i].logprobs));
}
