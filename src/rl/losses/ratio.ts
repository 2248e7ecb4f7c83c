// The importance ratio pi_theta / pi_old in ReMA's three forms and its derivative with respect to each token's
// log-prob, written once for the loss (policy-loss.ts) and for the inspector's per-token view (train/token-view.ts):
//
//   delta_j = logp_j - old_j,  capped at `cap` (logRatioClip) before exponentiating
//   token:                   r_j = exp(min(delta_j, cap))
//   turn-geometric (code):   r_t = exp(min(mean_{j in t} delta_j, cap))
//   turn-arithmetic (Eq.13): r_t = mean_{j in t} exp(min(delta_j, cap))
// A capped delta has no gradient (the min's other branch is constant).

/** Token ratio from delta = logp - old, and d r / d logp. */
export function tokenRatio(delta: number, cap: number): { ratio: number; dRatio: number } {
  const ratio = Math.exp(Math.min(delta, cap));
  return { ratio, dRatio: delta < cap ? ratio : 0 };
}

/**
 * Turn-level ratio of the tokens [start, end) of a row, and d r_t / d logp_j for each of them (dRatio[j - start]).
 */
export function turnRatio(
  mode: 'turn-geometric' | 'turn-arithmetic',
  logp: ArrayLike<number>,
  oldLogp: ArrayLike<number>,
  start: number,
  end: number,
  cap: number,
): { ratio: number; dRatio: Float64Array } {
  const len = end - start;
  const dRatio = new Float64Array(len);
  if (mode === 'turn-geometric') {
    let mean = 0;
    for (let j = start; j < end; j++) mean += logp[j] - oldLogp[j];
    mean /= len;
    const ratio = Math.exp(Math.min(mean, cap));
    if (mean < cap) dRatio.fill(ratio / len);
    return { ratio, dRatio };
  }
  let ratio = 0;
  for (let j = start; j < end; j++) {
    const t = tokenRatio(logp[j] - oldLogp[j], cap);
    ratio += t.ratio / len;
    dRatio[j - start] = t.dRatio / len;
  }
  return { ratio, dRatio };
}
