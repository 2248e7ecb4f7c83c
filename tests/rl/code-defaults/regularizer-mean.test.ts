// The released code averages the KL and entropy terms over trained tokens (dp_rema_actor:
// kl_loss = masked_mean(kld, label_mask), entropy_loss = masked_mean(entropy, label_mask)) whatever agg_mode the
// policy loss uses. Checked against a direct port of that computation on a trajectory-aggregated batch, and the
// earlier behaviour (weights of the policy loss) still available as regularizerMean "aggregation".
import { describe, expect, it } from 'vitest';
import { klTerm, policyLoss, type LossOptions, type LossRow } from '../../../src/rl/losses/policy-loss.ts';
import { aggregationWeights } from '../../../src/rl/losses/aggregate.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { validateConfig } from '../../../src/rl/config.ts';

const opts: LossOptions = {
  ratio: 'turn-geometric',
  logRatioClip: 3,
  clipLow: 0.2,
  clipHigh: 0.2,
  dualClip: 3,
  aggregation: 'trajectory',
  lossNormLength: 1,
  klBeta: 0.1,
  klEstimator: 'k3',
  entropyCoef: 0.01,
};

// two rows of unequal shape: row 0 = turns [0,0,0,1], row 1 = one turn of 2 tokens; on-policy (ratio 1)
const rows: LossRow[] = [
  {
    turn: [0, 0, 0, 1],
    logp: [-1, -2, -0.5, -1.5],
    oldLogp: [-1, -2, -0.5, -1.5],
    refLogp: [-1.2, -1.5, -0.5, -2],
    advantage: 0.7,
  },
  { turn: [0, 0], logp: [-0.3, -2.2], oldLogp: [-0.3, -2.2], refLogp: [-0.1, -2.0], advantage: -0.7 },
];

/** the code: pg_loss(trajectory) + kl_coef * masked_mean(k3) over every trained token of the micro-batch */
function codeLoss(): number {
  // pg part on-policy: per row mean over turns of -A (turn ratio 1), then mean over rows
  const pg = (-0.7 + 0.7) / 2;
  const kls = rows.flatMap((r) => Array.from(r.logp, (lp, j) => klTerm(lp, r.refLogp![j], 'k3').kl));
  return pg + 0.1 * (kls.reduce((a, b) => a + b, 0) / kls.length);
}

describe('regularizerMean', () => {
  it('"token" (code default): the KL term is the token mean over the mini-batch, the entropy coefficient -c/N per token', () => {
    const r = policyLoss(rows, { ...opts, regularizerMean: 'token' });
    expect(r.loss).toBeCloseTo(codeLoss(), 14);
    // d/dlogp_j of beta * mean_j k3 = beta * (1 - exp(ref - logp)) / N, plus the pg coefficient -A * w_j
    const w = aggregationWeights(
      rows.map((x) => x.turn),
      'trajectory',
    );
    rows.forEach((row, i) =>
      row.turn.forEach((_, j) => {
        const kl = klTerm(row.logp[j], row.refLogp![j], 'k3');
        expect(r.coef[i][j]).toBeCloseTo(-row.advantage * w[i][j] + (0.1 * kl.dlogp) / 6, 6);
      }),
    );
    for (const e of r.entropyCoef!) for (const x of e) expect(x).toBeCloseTo(-0.01 / 6, 9);
  });

  it('"aggregation" (earlier behaviour) weights them like the policy loss, which differs here', () => {
    const token = policyLoss(rows, { ...opts, regularizerMean: 'token' });
    const agg = policyLoss(rows, { ...opts, regularizerMean: 'aggregation' });
    const w = aggregationWeights(
      rows.map((x) => x.turn),
      'trajectory',
    );
    let kl = 0;
    rows.forEach((row, i) =>
      row.turn.forEach((_, j) => (kl += w[i][j] * klTerm(row.logp[j], row.refLogp![j], 'k3').kl)),
    );
    expect(agg.loss).toBeCloseTo(0.1 * kl, 14);
    expect(Math.abs(agg.loss - token.loss)).toBeGreaterThan(1e-4);
    expect(agg.entropyCoef![1][0]).toBeCloseTo(-0.01 * w[1][0], 9);
  });

  it('is "token" in the presets and reads as "aggregation" in configs saved before it', () => {
    expect(getPreset('rema-multiturn').regularizerMean).toBe('token');
    expect(getPreset('rema-singleturn').regularizerMean).toBe('token');
    const { regularizerMean: _dropped, ...old } = getPreset('tiny-default');
    expect(validateConfig(old, 'old config.json').regularizerMean).toBe('aggregation');
    expect(() => validateConfig({ regularizerMean: 'sum' }, 'f.json', getPreset('tiny-default'))).toThrow(
      /field "regularizerMean" must be one of token \| aggregation/,
    );
  });
});
