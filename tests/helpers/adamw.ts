// The optimiser most engine tests build their policy with: AdamW (beta 0.9 / 0.999, eps 1e-8), no weight decay,
// gradient clip 1, a constant learning rate. Tests differ only in the rate, so they say only that.
import type { OptimizerSetup } from '../../src/engine/policy/engine-policy-options.ts';

export function constantAdamW(lr: number): OptimizerSetup {
  return { lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, gradClip: 1, schedule: { kind: 'constant' } };
}
