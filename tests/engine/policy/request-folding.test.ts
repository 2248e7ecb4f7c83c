// Requests folded into those that contain them (policy/request-folding.ts): which fold (a prefix, a duplicate) and
// which do not (other tokens, another adapter, another target at a shared position); and EnginePolicy's scores and
// accumulated gradients of a batch that folds equal those of each request run alone (fixed and on-policy
// coefficients, entropy coefficients, target overrides).
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { createEnginePolicy, type EnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import type { GradientRequest, ScoreRequest, ScoreResult } from '../../../src/engine/policy/policy.ts';
import { foldGradients, foldRequests, unfoldResults } from '../../../src/engine/policy/request-folding.ts';
import { constantAdamW } from '../../helpers/adamw.ts';
import { relMaxErr } from '../../helpers/kernel-compare.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';
import { Rng } from '../../../src/util/rng.ts';

const cfg = tinyConfig({ vocabSize: 29 });
const weights = randomWeights(cfg, 12);

const long = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const requests: GradientRequest[] = [
  // 0: the whole sequence, its last three tokens scored
  { tokens: long, positions: [7, 8, 9], adapter: 'a', coef: Float32Array.of(0.5, -1, 2) },
  // 1: a prefix of 0 (an episode that ended earlier), scored on-policy
  { tokens: long.slice(0, 6), positions: [4, 5], adapter: 'a', coef: (lp) => Float32Array.from(lp, (x) => 1 - x) },
  // 2: a duplicate of 0, with an entropy coefficient
  {
    tokens: long,
    positions: [7, 8, 9],
    adapter: 'a',
    coef: Float32Array.of(1, 1, 1),
    entropyCoef: Float32Array.of(0.1, 0.2, 0.3),
  },
  // 3: a prefix of 0 that scores 0's position 7 with another target: not folded
  { tokens: long.slice(0, 8), positions: [6, 7], adapter: 'a', coef: Float32Array.of(-0.5, 0.25), targets: [8, 20] },
  // 4: other tokens
  { tokens: [2, 3, 4, 5, 13, 14], positions: [4, 5], adapter: 'a', coef: Float32Array.of(1, 2) },
  // 5: a prefix of 0 for another adapter
  { tokens: long.slice(0, 5), positions: [3, 4], adapter: 'b', coef: Float32Array.of(3, -3) },
];

/** The folding rule written out: each request (longest first) joins the first earlier host of its adapter that
 *  begins with all of its tokens and scores no shared position with another target. */
function foldByDefinition(rs: readonly ScoreRequest[]): number[] {
  const order = rs.map((_, i) => i).toSorted((a, b) => rs[b].tokens.length - rs[a].tokens.length || a - b);
  const hosts: Array<{ r: ScoreRequest; targets: Map<number, number> }> = [];
  const host: number[] = [];
  for (const i of order) {
    const r = rs[i];
    const target = (k: number) => (r.targets ? r.targets[k] : r.tokens[r.positions[k]]);
    let h = hosts.findIndex(
      ({ r: hr, targets }) =>
        hr.adapter === r.adapter &&
        hr.tokens.length >= r.tokens.length &&
        r.tokens.every((t, j) => hr.tokens[j] === t) &&
        r.positions.every((p, k) => targets.get(p) === undefined || targets.get(p) === target(k)),
    );
    if (h < 0) h = hosts.push({ r, targets: new Map() }) - 1;
    r.positions.forEach((p, k) => hosts[h].targets.set(p, target(k)));
    host[i] = h;
  }
  return host;
}

function policy(backend = new CpuBackend()): EnginePolicy {
  return createEnginePolicy({
    backend,
    config: cfg,
    weights,
    decoder: { decode: (ids) => ids.join(' ') },
    training: { mode: 'lora', adapters: ['a', 'b'], rank: 4, alpha: 8, targets: ['q', 'k', 'v', 'o', 'up'] },
    optimizer: constantAdamW(5e-2),
    seed: 3,
  });
}

describe('request folding', () => {
  it('folds prefixes and duplicates into the longest request that holds them, not other tokens, adapters or targets', () => {
    const f = foldRequests(requests);
    expect(f.folded.length).toBe(4);
    expect(f.host[1]).toBe(f.host[0]);
    expect(f.host[2]).toBe(f.host[0]);
    expect(new Set([f.host[0], f.host[3], f.host[4], f.host[5]]).size).toBe(4);
    expect(f.folded[f.host[0]].positions).toEqual([4, 5, 7, 8, 9]);
    expect(Array.from(f.at[1])).toEqual([0, 1]);
    expect(Array.from(f.at[2])).toEqual([2, 3, 4]);
    expect(f.folded[f.host[3]].targets).toEqual([8, 20]);
    // duplicates' coefficients add; an on-policy one gets its own positions' log-probs
    const g = foldGradients(requests, f)[f.host[0]];
    const coef = g.coef as (lp: Float32Array) => Float32Array;
    expect(Array.from(coef(Float32Array.of(-1, -2, -3, -4, -5)))).toEqual([2, 3, 1.5, 0, 3]);
    expect(g.entropyCoef).toEqual(Float32Array.of(0, 0, 0.1, 0.2, 0.3));
    const back = unfoldResults(
      f.folded.map((r) => ({
        logprobs: Float32Array.from(r.positions, (p) => -p),
        entropy: Float32Array.from(r.positions, (p) => p),
      })),
      f,
    );
    expect(Array.from(back[1].logprobs)).toEqual([-4, -5]);
    expect(Array.from(back[2].entropy)).toEqual([7, 8, 9]);
  });

  it('folds random batches as the rule says (prefixes from a small alphabet, two adapters, targets)', () => {
    const rng = new Rng(5);
    for (let trial = 0; trial < 40; trial++) {
      const stems = Array.from({ length: 3 }, () => Array.from({ length: 1 + rng.int(0, 5) }, () => rng.int(0, 2)));
      const rs: ScoreRequest[] = Array.from({ length: 30 }, () => {
        const tokens = [...stems[rng.int(0, 2)], ...Array.from({ length: rng.int(0, 4) }, () => rng.int(0, 1))];
        if (tokens.length < 2) tokens.push(1);
        const positions = [...new Set([tokens.length - 1, 1 + rng.int(0, tokens.length - 2)])].toSorted(
          (a, b) => a - b,
        );
        const adapter = rng.int(0, 3) === 0 ? 'b' : 'a';
        return rng.int(0, 4) === 0
          ? { tokens, positions, adapter, targets: positions.map(() => rng.int(0, 2)) }
          : { tokens, positions, adapter };
      });
      expect(Array.from(foldRequests(rs).host), `trial ${trial}`).toEqual(foldByDefinition(rs));
    }
  });

  it('EnginePolicy: a batch that folds scores and trains as each request run alone', async () => {
    const be = new CpuBackend();
    const together = policy(be);
    const alone = policy();
    // a step first, so every LoRA A and B has a gradient
    for (const p of [together, alone]) {
      await p.accumulateGradients([{ tokens: long, positions: [3, 6], adapter: 'a', coef: Float32Array.of(1, -1) }]);
      await p.optimizerStep('a');
      p.zeroGrad('a');
      p.zeroGrad('b');
    }
    // rows the LM head scores: the folded requests' positions (11), not every request's (14)
    let scoredRows = 0;
    const run = be.run.bind(be);
    be.run = ((kernel: string, args: { p: { R: number } }) => {
      if (kernel === 'logprob') scoredRows += args.p.R;
      return run(kernel as never, args as never);
    }) as typeof be.run;
    const got = await together.accumulateGradients(requests, { temperature: 0.7 });
    expect(scoredRows).toBe(11);
    const want: ScoreResult[] = [];
    for (const r of requests) want.push(...(await alone.accumulateGradients([r], { temperature: 0.7 })));
    requests.forEach((_, i) => {
      expect(relMaxErr(got[i].logprobs, want[i].logprobs), `log-probs of request ${i}`).toBeLessThan(1e-5);
      expect(relMaxErr(got[i].entropy, want[i].entropy), `entropies of request ${i}`).toBeLessThan(1e-5);
    });
    for (const adapter of ['a', 'b']) {
      const [g, w] = [await together.gradients(adapter), await alone.gradients(adapter)];
      for (const [name, t] of w) expect(relMaxErr(g.get(name)!, t), `${adapter} ${name}`).toBeLessThan(1e-5);
    }
    const scored = await together.score(requests, { reference: true });
    for (const [i, r] of requests.entries()) {
      const [one] = await alone.score([r], { reference: true });
      expect(relMaxErr(scored[i].logprobs, one.logprobs), `reference log-probs of request ${i}`).toBeLessThan(1e-5);
    }
  });
});
