// EnginePolicy keepKvBytes: a multi-turn exchange of two agents (turn t+2 of an agent extends its turn t and what it
// drew) generates the same tokens and log-probs as with nothing kept, while its later turns prefill behind kept
// rows; and after an optimiser step moves the weights, nothing kept before it is read.
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { DEFAULT_KEEP_KV_BYTES } from '../../../src/engine/model/kv-keep.ts';
import { createEnginePolicy, type EnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import type { GenerateRequest } from '../../../src/engine/policy/policy.ts';
import { constantAdamW } from '../../helpers/adamw.ts';
import { relMaxErr } from '../../helpers/kernel-compare.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';

const cfg = tinyConfig({ vocabSize: 41 });
const weights = randomWeights(cfg, 9);
const greedy = { temperature: 0, topP: 1, topK: 0, seed: 1 };

/** prefill passes behind kept rows (attention over several rows with past > 0) on `be` from now on */
function countBehind(be: Backend): () => number {
  let n = 0;
  const run = be.run.bind(be);
  be.run = ((kernel: string, args: { p: { T: number; past: number } }) => {
    if (kernel === 'attention' && args.p.T > 1 && args.p.past > 0) n++;
    return run(kernel as never, args as never);
  }) as Backend['run'];
  return () => n;
}

function policyFor(be: Backend, keepKvBytes?: number): EnginePolicy {
  return createEnginePolicy({
    backend: be,
    config: cfg,
    weights,
    decoder: { decode: (ids) => ids.join(' ') },
    training: { mode: 'lora', adapters: ['a'], rank: 4, alpha: 8, targets: ['q', 'k', 'v', 'o', 'up'] },
    optimizer: constantAdamW(5e-2),
    seed: 3,
    sharePrefixes: false, // (its training pass also runs rows behind a cache)
    ...(keepKvBytes !== undefined ? { keepKvBytes } : {}),
  });
}

const request = (prompt: number[], b: number): GenerateRequest => ({
  prompt,
  adapter: 'a',
  maxNewTokens: 3 + (b % 4),
  stopStrings: [],
  stopTokenIds: [],
});

/** Four turns of two agents over 5 episodes; then a step on the last turn's tokens and a fifth turn. Returns every
 *  turn's tokens and log-probs. */
async function exchange(p: EnginePolicy): Promise<Array<{ tokens: number[][]; logprobs: number[][] }>> {
  const agents = [
    [2, 3, 4, 5, 6, 7],
    [30, 31, 32, 33],
  ];
  const problems = [[10], [11, 12], [13], [14, 15, 16], [10]];
  // each agent's history in each episode
  const history = agents.map((a) => problems.map((q) => [...a, ...q]));
  const turns: Array<{ tokens: number[][]; logprobs: number[][] }> = [];
  const turn = async (agent: number) => {
    const gens = await p.generate(
      history[agent].map((h, b) => request(h, b)),
      greedy,
    );
    gens.forEach((g, b) => {
      history[agent][b].push(...g.tokens, 20 + agent); // its turn's end marker
      history[1 - agent][b].push(21, ...g.tokens, 22); // seen by the other agent
    });
    turns.push({ tokens: gens.map((g) => g.tokens), logprobs: gens.map((g) => g.logprobs) });
  };
  for (let t = 0; t < 4; t++) await turn(t % 2);
  p.zeroGrad('a');
  await p.accumulateGradients(
    history[0].map((h) => ({
      tokens: h,
      positions: [h.length - 3, h.length - 2],
      adapter: 'a',
      coef: Float32Array.of(1, -1),
    })),
  );
  await p.optimizerStep('a');
  await turn(0);
  return turns;
}

describe('EnginePolicy keepKvBytes', () => {
  it('later turns prefill behind kept rows and generate what a policy that keeps nothing does, also after a step', async () => {
    const keeping = new CpuBackend();
    const behind = countBehind(keeping);
    const plain = new CpuBackend();
    const unkept = countBehind(plain);
    const a = await exchange(policyFor(keeping, DEFAULT_KEEP_KV_BYTES));
    const b = await exchange(policyFor(plain, 0));
    // turns 3, 4 and 5 (after the step: the rows kept by turn 4 are of the old weights, turn 5 prefills whole)
    expect(behind()).toBeGreaterThanOrEqual(2);
    expect(unkept()).toBe(0);
    a.forEach((t, i) => {
      expect(t.tokens, `turn ${i + 1}`).toEqual(b[i].tokens);
      t.logprobs.forEach((lp, e) =>
        expect(
          relMaxErr(Float32Array.from(lp), Float32Array.from(b[i].logprobs[e])),
          `turn ${i + 1} episode ${e}`,
        ).toBeLessThan(1e-5),
      );
    });
  });
});
