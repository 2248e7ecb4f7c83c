// Training with each distinct context run once (model/prefix-train.ts, EnginePolicy sharePrefixes) against the
// whole-row backward (runSequences): GRPO-like groups, every trainable tensor's accumulated gradient and the
// forward's log-probs and entropies, for LoRA (an adapter already moved by a step, so every A and B gets a
// gradient) and full fine-tuning, with fixed coefficients and entropy coefficients at a sampling temperature, and with
// coefficients computed from the forward's log-probs (an on-policy step). The sums run in another order (a context's
// keys and values gather their rows' gradients first), so they agree to rounding: 1e-5 of each tensor's largest
// gradient on the CPU reference kernels, 1e-4 on WASM (one and two threads).
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import { spawnNodeWasmHelper } from '../../../src/cli/wasm-helper-node.ts';
import { createEnginePolicy, type EnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import type { GradientRequest } from '../../../src/engine/policy/policy.ts';
import { prefixSharingPlan } from '../../../src/engine/policy/request-batching.ts';
import { relMaxErr } from '../../helpers/kernel-compare.ts';
import { groupRequests } from '../../helpers/engine/group-requests.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';

const cfg = tinyConfig({ vocabSize: 37 });
const weights = randomWeights(cfg, 5);
const optimizer = {
  lr: 5e-2,
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  weightDecay: 0,
  gradClip: 1,
  schedule: { kind: 'constant' as const },
};

/** attentionBackward calls behind a context (past > 0) on `be` from now on */
function countShared(be: Backend): () => number {
  let n = 0;
  const run = be.run.bind(be);
  be.run = ((kernel: string, args: { p: { past?: number } }) => {
    if (kernel === 'attentionBackward' && (args.p.past ?? 0) > 0) n++;
    return run(kernel as never, args as never);
  }) as Backend['run'];
  return () => n;
}

async function policyFor(
  be: Backend,
  mode: 'lora' | 'full',
  sharePrefixes: boolean,
  activationBudgetBytes?: number,
): Promise<EnginePolicy> {
  const p = createEnginePolicy({
    backend: be,
    config: cfg,
    weights,
    decoder: { decode: (ids) => ids.join(' ') },
    training:
      mode === 'lora'
        ? { mode, adapters: ['a'], rank: 4, alpha: 8, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] }
        : { mode, adapters: ['full'] },
    optimizer,
    seed: 3,
    sharePrefixes,
    activationBudgetBytes,
  });
  if (mode === 'lora') {
    // one whole-row step first (the same on both), so that B != 0 and every A gets a gradient
    const rows = groupRequests(cfg.vocabSize, 2, 1, 'a', 9);
    await p.accumulateGradients(rows.map((r) => ({ ...r, coef: Float32Array.from(r.positions, (_, t) => 1 - t) })));
    await p.optimizerStep('a');
    p.zeroGrad('a');
  }
  return p;
}

const adapterName = (mode: 'lora' | 'full') => (mode === 'lora' ? 'a' : 'full');

async function compare(make: () => Promise<Backend>, mode: 'lora' | 'full', tol: number, budget?: number) {
  // three groups of four, and two prompts of one completion each (run whole in the same call)
  const requests = [
    ...groupRequests(cfg.vocabSize, 3, 4, adapterName(mode), 1),
    ...groupRequests(cfg.vocabSize, 2, 1, adapterName(mode), 2),
  ];
  expect(prefixSharingPlan(requests, 4096)?.rest).toEqual([12, 13]);
  const fixed: GradientRequest[] = requests.map((r, i) => ({
    ...r,
    coef: Float32Array.from(r.positions, (_, t) => Math.sin(i + 0.3 * t)),
    entropyCoef: i % 2 === 0 ? Float32Array.from(r.positions, () => 0.01) : undefined,
  }));
  const onPolicy: GradientRequest[] = requests.map((r) => ({
    ...r,
    coef: (lp: Float32Array) => lp.map((x) => Math.exp(x) - 0.5),
  }));
  for (const [reqs, temperature] of [
    [fixed, 0.8],
    [onPolicy, 1],
  ] as const) {
    const sharedBe = await make();
    const shared = countShared(sharedBe);
    const a = await policyFor(sharedBe, mode, true, budget);
    const b = await policyFor(await make(), mode, false, budget);
    const ra = await a.accumulateGradients(reqs, { temperature });
    const rb = await b.accumulateGradients(reqs, { temperature });
    expect(shared(), 'the shared path ran').toBeGreaterThan(0);
    ra.forEach((r, i) => {
      expect(relMaxErr(r.logprobs, rb[i].logprobs), `logprobs ${i}`).toBeLessThan(tol);
      expect(relMaxErr(r.entropy, rb[i].entropy), `entropy ${i}`).toBeLessThan(tol);
    });
    const ga = await a.gradients(adapterName(mode));
    const gb = await b.gradients(adapterName(mode));
    expect([...ga.keys()]).toEqual([...gb.keys()]);
    for (const [name, g] of gb) {
      expect(
        g.some((x) => x !== 0),
        `${name} has a gradient`,
      ).toBe(true);
      expect(relMaxErr(ga.get(name)!, g), name).toBeLessThan(tol);
    }
    await a.dispose();
    await b.dispose();
  }
}

describe('training with shared contexts', () => {
  for (const mode of ['lora', 'full'] as const) {
    it(`CPU backend, ${mode}: the whole-row gradients, log-probs and entropies`, async () => {
      await compare(async () => new CpuBackend(), mode, 1e-5);
    });
  }
  it('CPU backend, LoRA, every layer recomputed in the backward (activation budget 0)', async () => {
    await compare(async () => new CpuBackend(), 'lora', 1e-5, 0);
  });
  for (const threads of [1, 2] as const) {
    it(`WASM backend (${threads} thread${threads > 1 ? 's' : ''}), LoRA: agree to rounding`, async () => {
      await compare(() => WasmBackend.create({ spawnHelper: spawnNodeWasmHelper, cores: 2, threads }), 'lora', 1e-4);
    });
  }
});
