// Forward-only scoring with each distinct context run once (model/prefix-score.ts, EnginePolicy sharePrefixes)
// against scoring every row whole: GRPO-like groups (one prompt, several completions of different lengths), target
// overrides, a sampling temperature, the reference (adapters off), a trained LoRA adapter unmerged and merged into
// the fused inference layers. The CPU reference kernels give the same bits; the WASM kernels agree to rounding (a
// few-row matmul takes another code path).
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import { prefixSharingTokens } from '../../../src/engine/model/prefix-score.ts';
import { prefixSharingPlan } from '../../../src/engine/policy/request-batching.ts';
import { createEnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import type { ScoreRequest, TokenDecoder } from '../../../src/engine/policy/policy.ts';
import { groupRequests as groupRequestsOf } from '../../helpers/engine/group-requests.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';

const cfg = tinyConfig({ vocabSize: 37 });
const weights = randomWeights(cfg, 5);
const letters: TokenDecoder = { decode: (ids) => ids.map((i) => String.fromCharCode(97 + (i % 26))).join('') };

const groupRequests = (groups: number, G: number, adapter: string | null, seed: number) =>
  groupRequestsOf(cfg.vocabSize, groups, G, adapter, seed);

async function scoreBoth(be: () => Promise<Backend>, merge: boolean) {
  const policy = async (sharePrefixes: boolean) => {
    const p = createEnginePolicy({
      backend: await be(),
      config: cfg,
      weights,
      decoder: letters,
      training: {
        mode: 'lora',
        adapters: ['a'],
        rank: 4,
        alpha: 8,
        targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
      },
      optimizer: {
        lr: 5e-2,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weightDecay: 0,
        gradClip: 1,
        schedule: { kind: 'constant' },
      },
      seed: 3,
      sharePrefixes,
      mergeLoraForInference: merge,
    });
    // one step so the adapter is not the identity
    const rows = groupRequests(2, 3, 'a', 9);
    await p.accumulateGradients(rows.map((r) => ({ ...r, coef: Float32Array.from(r.positions, (_, t) => 1 - t) })));
    await p.optimizerStep('a');
    return p;
  };
  const shared = await policy(true);
  const whole = await policy(false);
  const requests = groupRequests(5, 4, 'a', 1);
  // a target override on one request
  expect(prefixSharingPlan(requests, 4096)).not.toBeNull(); // the shared policy does share
  requests[3] = { ...requests[3], targets: requests[3].positions.map((_, t) => (t * 7) % cfg.vocabSize) };
  const calls: Array<[ScoreRequest[], { reference?: boolean; temperature?: number }]> = [
    [requests, {}],
    [requests, { reference: true }],
    [requests, { temperature: 0.7 }],
  ];
  const out = [];
  for (const [reqs, opts] of calls) out.push([await shared.score(reqs, opts), await whole.score(reqs, opts)] as const);
  return out;
}

/** One prompt, four rows of 40 scored tokens and four of 2 (suffixes of 41 and 3: the last prompt token runs with
 *  them). */
const splitRows = (contextLength: number) =>
  [40, 40, 40, 40, 2, 2, 2, 2].map((n, i) => {
    const tokens = Array.from({ length: contextLength + n }, (_, t) => (t < contextLength ? t % 30 : (i + t) % 30));
    return { tokens, positions: Array.from({ length: n }, (_, t) => contextLength + t) };
  });

describe('scoring with shared contexts', () => {
  it('counts the tokens sharing saves, and plans chunks only where they pay', () => {
    const reqs = groupRequests(3, 4, 'a', 2);
    const { shared, plain } = prefixSharingTokens(reqs);
    expect(plain).toBe(reqs.reduce((s, r) => s + r.tokens.length, 0));
    expect(shared).toBeLessThan(0.75 * plain);
    const chunks = prefixSharingPlan(reqs, 10_000)!.chunks;
    expect(chunks.flat().toSorted((a, b) => a - b)).toEqual(reqs.map((_, i) => i));
    expect(chunks).toHaveLength(1);
    // a tighter budget splits, every chunk's padded suffix rows within it
    const small = prefixSharingPlan(reqs, 80)!.chunks;
    expect(small.length).toBeGreaterThan(1);
    for (const c of small) {
      const longest = Math.max(...c.map((i) => reqs[i].tokens.length - reqs[i].positions[0] + 1));
      expect(c.length === 1 || c.length * longest <= 80).toBe(true);
    }
    // chunks so small that every context runs again in most of them: padded rows over 85% of whole rows
    expect(prefixSharingPlan(reqs, 20)).toBeNull();
    // a context no other sequence has is left to run whole
    const mixed = [...reqs, ...groupRequests(2, 1, 'a', 4)];
    const plan = prefixSharingPlan(mixed, 10_000)!;
    expect(plan.rest).toEqual([reqs.length, reqs.length + 1]);
    expect(plan.chunks.flat().toSorted((a, b) => a - b)).toEqual(reqs.map((_, i) => i));
    // distinct prompts share nothing: not worth it
    expect(prefixSharingPlan(groupRequests(6, 1, 'a', 3), 10_000)).toBeNull();
  });

  it('splits the rows of a context where padding the short suffixes to the long ones costs more than its rerun', () => {
    // a context of 9 tokens: 9 + 4 x 41 and 9 + 4 x 3 padded rows (plus 64 a chunk) beat 9 + 8 x 41
    const short = prefixSharingPlan(splitRows(10), 4096)!.chunks;
    expect(short.map((c) => c.toSorted((a, b) => a - b))).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
    // a context of 200 runs once: rerunning it costs more than the padding saves
    expect(prefixSharingPlan(splitRows(201), 4096)!.chunks).toHaveLength(1);
  });

  for (const merge of [false, true]) {
    it(`CPU backend, LoRA ${merge ? 'merged' : 'unmerged'}: the same log-probs and entropies as whole rows`, async () => {
      for (const [a, b] of await scoreBoth(async () => new CpuBackend(), merge)) expect(a).toEqual(b);
    });

    it(`WASM backend, LoRA ${merge ? 'merged' : 'unmerged'}: log-probs and entropies agree to rounding`, async () => {
      for (const [a, b] of await scoreBoth(() => WasmBackend.create({ variant: 'simd' }), merge)) {
        a.forEach((r, i) => {
          expect(r.logprobs.length).toBe(b[i].logprobs.length);
          r.logprobs.forEach((x, t) => expect(x).toBeCloseTo(b[i].logprobs[t], 4));
          r.entropy.forEach((x, t) => expect(x).toBeCloseTo(b[i].entropy[t], 4));
        });
      }
    });
  }
});
