// A real trainer step (CPU engine, tiny random-weight model) gives every trained turn of its rollouts the
// per-token view the inspector colours: pieces, log pi_old, ratio, clip code and advantage, one entry per trained
// token; fully on-policy the ratio is 1, after the weights moved it stays near 1.
import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '../../../src/rl/metrics.ts';
import { makeTrainer, smallConfig, tok } from '../../helpers/rl/trainer-setup.ts';

function checkTurns(rollouts: readonly RolloutRecord[]): { tokens: number; ratios: number[] } {
  let tokens = 0;
  const ratios: number[] = [];
  for (const r of rollouts)
    for (const t of r.turns) {
      if (!t.pieces) continue;
      const n = t.pieces.length;
      expect(n).toBeGreaterThan(0);
      for (const arr of [t.logprobs, t.ratio, t.clip, t.advantage]) expect(arr?.length).toBe(n);
      // the generated text, plus the end-of-turn token when the turn ended normally
      const joined = t.pieces.join('');
      expect(joined.startsWith(t.text)).toBe(true);
      expect(['', tok.decode([tok.endOfTurnTokenId])]).toContain(joined.slice(t.text.length));
      for (const c of t.clip!) expect([-1, 0, 1]).toContain(c);
      for (const lp of t.logprobs!) expect(lp).toBeLessThanOrEqual(0);
      for (const a of t.advantage!) expect(a).toBe(r.advantage);
      ratios.push(...t.ratio!);
      tokens += n;
    }
  return { tokens, ratios };
}

describe('per-token rollout records', () => {
  it('fully on-policy: one entry per trained token, ratio 1, no clip', async () => {
    // the random model's turns hit the 6-token cap: without stopWhenTruncated the reasoning agent answers the cut plan
    const { trainer } = makeTrainer(
      smallConfig('rema-multiturn', { entropyCoef: 0.01, oldLogProbs: 'score', stopWhenTruncated: false }),
    );
    const { metrics, rollouts } = await trainer.step();
    const { tokens, ratios } = checkTurns(rollouts);
    expect(tokens).toBeGreaterThan(0);
    expect(tokens).toBe(metrics.tokens_trained);
    for (const x of ratios) expect(x).toBeCloseTo(1, 6);
    // shared parameters train both agents: both generated tokens, and every turn that did carries the view
    const generated = rollouts.flatMap((r) => r.turns).filter((t) => t.tokens > 0);
    expect(new Set(generated.map((t) => t.role))).toEqual(new Set(['meta', 'reasoning']));
    for (const t of generated) expect(t.pieces, `${t.role} turn of ${t.tokens} tokens`).toBeDefined();
  });

  it('two mini-batches: the second sees moved weights, ratios finite and near 1', async () => {
    const { trainer } = makeTrainer(smallConfig('rema-multiturn', { entropyCoef: 0.05, miniBatches: 2 }));
    const { metrics, rollouts } = await trainer.step();
    const { tokens, ratios } = checkTurns(rollouts);
    expect(tokens).toBeGreaterThan(0);
    expect(tokens).toBe(metrics.tokens_trained);
    for (const x of ratios) {
      expect(Number.isFinite(x)).toBe(true);
      expect(Math.abs(x - 1)).toBeLessThan(0.5);
    }
    expect(ratios.some((x) => x !== 1)).toBe(true);
  });
});
