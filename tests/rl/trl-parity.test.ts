// Our GRPO step against Hugging Face TRL's own code path (GRPOTrainer._generate_and_score_completions, compute_loss,
// backward in float64; fixtures by scripts/trl/make_trl_fixtures.py): per model (the shipped tiny-rema, the golden
// qwen2-tied-gqa2), per case (dapo, dapo with k3 KL and clipping, grpo with KL at T 0.8, bnpo with batch std,
// dr_grpo with KL) and per backend (cpu, wasm, webgpu): the config that trlSettings maps to the case's GRPOConfig,
// then the trainer's own pieces on the fixture's batch: advantages (estimateAdvantages), old and reference log-probs
// and entropies (EnginePolicy.score), the loss and every LoRA gradient (updatePolicy, or for the off-policy case
// policyLoss + accumulateGradients, what updatePolicy runs once the weights have moved).
// Tolerances as tests/engine/golden.test.ts (relative to the fixture tensor's max |value|, x2 on wasm and webgpu):
// log-probs and entropies 2e-5, gradients 2e-4 (+1e-7); the loss 2e-5 of (|loss| + 1); advantages 1e-6 (TRL computes them in float32).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../helpers/wasm-build.ts';
import type { Backend } from '../../src/engine/backend.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { parseSafetensors, type SafetensorsTensor } from '../../src/engine/io/safetensors.ts';
import { EnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import type { TrainablePolicy } from '../../src/engine/policy/policy.ts';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import { estimateAdvantages } from '../../src/rl/losses/estimators.ts';
import { policyLoss } from '../../src/rl/losses/policy-loss.ts';
import { optimizerSetup } from '../../src/rl/policy-setup.ts';
import { getPreset } from '../../src/rl/presets.ts';
import type { TrainRow } from '../../src/rl/train/rows.ts';
import {
  logprobTemperature,
  lossOptions,
  needsOldLogProbs,
  scoreRequests,
  updatePolicy,
} from '../../src/rl/train/update.ts';
import { trlSettings, TRL_ADV_EPS } from '../../src/rl/trl-settings.ts';
import { getTestDevice } from '../helpers/webgpu.ts';

const root = resolve(import.meta.dirname, '../..');
const FIXTURES = join(root, 'tests/fixtures/trl');
const MODELS: Record<string, string> = {
  'tiny-rema': join(root, 'public/models/tiny-rema'),
  'qwen2-tied-gqa2': join(root, 'tests/fixtures/golden/qwen2-tied-gqa2'),
};

const dawn = await getTestDevice();
const backends: Array<[string, () => Promise<Backend>, number]> = [
  ['cpu', async () => new CpuBackend(), 1],
  ['wasm', () => WasmBackend.create(), 2],
  ['webgpu', async () => WebGpuBackend.create(dawn.device, { gpuInfo: dawn.gpuInfo }), 2],
];

interface TrlCase {
  grpo_config: Record<string, string | number | boolean>;
  old_shift: boolean;
}
interface Cases {
  group_size: number;
  max_completion_length: number;
  cases: Record<string, TrlCase>;
}

const tensors = (file: string): Map<string, SafetensorsTensor> =>
  parseSafetensors(new Uint8Array(readFileSync(file)), file).tensors;
const values = (t: Map<string, SafetensorsTensor>, key: string): Float64Array => {
  const x = t.get(key);
  if (!x) throw new Error(`fixture: missing "${key}"`);
  return Float64Array.from(x.data as ArrayLike<number>);
};
const maxAbs = (a: ArrayLike<number>) => Array.from(a).reduce((m, x) => Math.max(m, Math.abs(x)), 0);

/** max|got - want| <= rel·max|want| + abs; returns the error relative to max|want| */
function compare(label: string, got: ArrayLike<number>, want: ArrayLike<number>, rel: number, abs: number): number {
  expect(got.length, `${label}: length`).toBe(want.length);
  let d = 0;
  for (let i = 0; i < want.length; i++) d = Math.max(d, Math.abs(got[i] - want[i]));
  const scale = maxAbs(want);
  expect(d, `${label}: max|Δ| ${d.toExponential(2)} vs max|TRL| ${scale.toExponential(2)}`).toBeLessThanOrEqual(
    rel * scale + abs,
  );
  return scale > 0 ? d / scale : d;
}

/** Our config for a case: the settings trlSettings maps to exactly the case's GRPOConfig. */
function configFor(c: TrlCase, cases: Cases, groups: number): ExperimentConfig {
  const g = c.grpo_config;
  const aggregation = {
    dapo: 'token-mean',
    bnpo: 'token-mean',
    grpo: 'seq-mean-token-mean',
    dr_grpo: 'seq-mean-token-sum-norm',
  }[g.loss_type as string] as ExperimentConfig['aggregation'];
  return {
    ...getPreset('vrp-rl'),
    advantage: 'grpo',
    stdScaling: g.scale_rewards as ExperimentConfig['stdScaling'],
    advEps: TRL_ADV_EPS,
    aggregation,
    lossNormLength: 0,
    klBeta: g.beta as number,
    klPlacement: 'loss',
    klEstimator: 'k3',
    regularizerMean: 'aggregation',
    clipLow: g.epsilon as number,
    clipHigh: (g.epsilon_high as number | undefined) ?? (g.epsilon as number),
    dualClip: null,
    logRatioClip: Infinity,
    temperature: g.temperature as number,
    logprobTemperature: 'rollout',
    ppoEpochs: (g.num_iterations as number | undefined) ?? 1,
    miniBatches: 1,
    groupSize: cases.group_size,
    problemsPerStep: groups,
    maxTokensPerTurn: cases.max_completion_length - 1,
    finetune: 'lora',
    loraRank: 2,
    loraAlpha: 3,
  };
}

/** The fixture's batch as training rows: prompt (unpadded) + completion (unpadded), every completion token trained. */
function rowsOf(batch: Map<string, SafetensorsTensor>, groupSize: number): TrainRow[] {
  const [B, P] = batch.get('prompt_ids')!.shape;
  const C = batch.get('completion_ids')!.shape[1];
  const [pIds, pMask, cIds, cMask] = ['prompt_ids', 'prompt_mask', 'completion_ids', 'completion_mask'].map((k) =>
    Array.from(batch.get(k)!.data as ArrayLike<number | bigint>, Number),
  );
  const rewards = values(batch, 'rewards');
  return Array.from({ length: B }, (_, b) => {
    const prompt = pIds.slice(b * P, (b + 1) * P).filter((_x, i) => pMask[b * P + i] === 1);
    const completion = cIds.slice(b * C, (b + 1) * C).filter((_x, i) => cMask[b * C + i] === 1);
    return {
      episode: b,
      role: 'reasoning',
      adapter: 'a',
      group: `g${Math.floor(b / groupSize)}`,
      tokens: [...prompt, ...completion],
      positions: completion.map((_x, j) => prompt.length + j),
      turns: completion.map(() => 0),
      reward: rewards[b],
      advantage: 0,
      oldLogp: null,
      refLogp: null,
    };
  });
}

/** Values of a [B, C] fixture tensor at each row's completion tokens, concatenated. */
function perToken(t: Map<string, SafetensorsTensor>, key: string, rows: readonly TrainRow[]): Float64Array {
  const x = values(t, key);
  const C = t.get(key)!.shape[1];
  return Float64Array.from(rows.flatMap((r, b) => Array.from(x.subarray(b * C, b * C + r.positions.length))));
}

/** A fixture's GRPOConfig value as trlSettings writes it: with one process and one mini-batch, bnpo's local token
 *  count is dapo's generation-batch count. */
const same = (k: string, v: unknown) => (k === 'loss_type' && v === 'bnpo' ? 'dapo' : v);

const flat = (arrays: readonly ArrayLike<number>[]) => Float64Array.from(arrays.flatMap((a) => Array.from(a)));

/** The policy as updatePolicy sees it, except that an optimiser step records the gradients instead of applying them. */
function recordingPolicy(policy: EnginePolicy, record: Map<string, Float32Array>[]): TrainablePolicy {
  return {
    score: (r, o) => policy.score(r, o),
    accumulateGradients: (r, o) => policy.accumulateGradients(r, o),
    zeroGrad: (a) => policy.zeroGrad(a),
    optimizerStep: async (a) => {
      record.push(await policy.gradients(a));
    },
    readOptimizerStats: async () => record.map(() => ({ gradNorm: 0, lr: 0, applied: true })),
  } as Partial<TrainablePolicy> as TrainablePolicy;
}

describe.each(Object.keys(MODELS))('TRL parity on %s', (model) => {
  const dir = join(FIXTURES, model);
  const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as Cases;
  const batch = tensors(join(dir, 'batch.safetensors'));
  const groups = batch.get('rewards')!.shape[0] / cases.group_size;

  it.each(Object.keys(cases.cases))('the case %s maps to our config with nothing unmatched', (name) => {
    const c = cases.cases[name];
    const settings = trlSettings(configFor(c, cases, groups));
    expect(settings.unmatched).toEqual([]);
    for (const [k, v] of Object.entries(c.grpo_config)) expect(settings.grpoConfig[k], k).toEqual(same(k, v));
    expect(settings.grpoConfig.max_completion_length).toBe(cases.max_completion_length);
  });

  describe.each(backends)('on %s', (backendName, makeBackend, slack) => {
    it.each(Object.keys(cases.cases))('%s: advantages, log-probs, loss and every LoRA gradient', async (name) => {
      const c = cases.cases[name];
      const want = tensors(join(dir, `${name}.safetensors`));
      const config = configFor(c, cases, groups);
      const be = await makeBackend();
      const ckpt = await loadHfCheckpoint(directoryFileSource(MODELS[model]));
      const policy = new EnginePolicy({
        backend: be,
        config: ckpt.config,
        weights: ckpt.weights,
        decoder: { decode: () => '' },
        training: { mode: 'lora', adapters: ['a'], rank: 2, alpha: 3, targets: config.loraTargets },
        optimizer: optimizerSetup(config),
        seed: 0,
        baseDtype: 'f32',
      });
      await policy.loadAdapter(
        'a',
        Object.fromEntries(
          ['adapter_config.json', 'adapter_model.safetensors'].map((f) => [
            f,
            new Uint8Array(readFileSync(join(dir, f))),
          ]),
        ),
      );
      const rows = rowsOf(batch, cases.group_size);
      const worst: Record<string, number> = {};

      const adv = estimateAdvantages('grpo', rows, config);
      rows.forEach((r, i) => (r.advantage = adv.advantages[i]));
      worst.advantages = compare('advantages', adv.advantages, values(want, 'advantages'), 1e-6, 0);

      const temperature = logprobTemperature(config);
      const scored = await policy.score(scoreRequests(rows), { temperature });
      worst.logps = compare(
        'log-probs',
        flat(scored.map((s) => s.logprobs)),
        perToken(want, 'logps', rows),
        2e-5 * slack,
        2e-5 * slack,
      );
      worst.entropy = compare(
        'entropies',
        flat(scored.map((s) => s.entropy)),
        perToken(want, 'entropy', rows),
        2e-5 * slack,
        2e-5 * slack,
      );
      if (config.klBeta > 0) {
        const ref = await policy.score(scoreRequests(rows), { reference: true, temperature });
        worst.ref = compare(
          'reference log-probs',
          flat(ref.map((s) => s.logprobs)),
          perToken(want, 'ref_logps', rows),
          2e-5 * slack,
          2e-5 * slack,
        );
        rows.forEach((r, i) => (r.refLogp = ref[i].logprobs));
      }

      let loss: number;
      let grads: Map<string, Float32Array>;
      if (c.old_shift) {
        // after an update: pi_old is the fixture's, the current log-probs are scored
        const old = perToken(want, 'old_logps', rows);
        let at = 0;
        for (const r of rows) {
          r.oldLogp = Float32Array.from(old.subarray(at, at + r.positions.length));
          at += r.positions.length;
        }
        const result = policyLoss(
          rows.map((r, i) => ({
            turn: r.turns,
            logp: scored[i].logprobs,
            oldLogp: r.oldLogp!,
            refLogp: r.refLogp!,
            advantage: r.advantage,
          })),
          lossOptions(config),
        );
        expect(result.clipFracLow + result.clipFracHigh, 'the shifted old log-probs clip some ratios').toBeGreaterThan(
          0,
        );
        policy.zeroGrad('a');
        await policy.accumulateGradients(
          rows.map((r, i) => ({ ...scoreRequests([r])[0], coef: result.coef[i] })),
          { temperature },
        );
        loss = result.loss;
        grads = await policy.gradients('a');
      } else {
        if (needsOldLogProbs(config)) rows.forEach((r, i) => (r.oldLogp = scored[i].logprobs));
        const record: Map<string, Float32Array>[] = [];
        const stats = await updatePolicy(recordingPolicy(policy, record), config, rows, 0);
        expect(record).toHaveLength(1);
        loss = stats.loss;
        grads = record[0];
      }
      const wantLoss = values(want, 'loss')[0];
      expect(Math.abs(loss - wantLoss), `loss ${loss} vs TRL ${wantLoss}`).toBeLessThanOrEqual(
        2e-5 * slack * (Math.abs(wantLoss) + 1),
      );
      worst.loss = Math.abs(loss - wantLoss);

      const names = [...want.keys()].filter((k) => k.startsWith('grad.')).map((k) => k.slice(5));
      expect([...grads.keys()].toSorted()).toEqual(names.toSorted());
      worst.grads = 0;
      for (const n of names)
        worst.grads = Math.max(
          worst.grads,
          compare(`grad ${n}`, grads.get(n)!, values(want, `grad.${n}`), 2e-4 * slack, 1e-7),
        );
      console.info(
        `${model}/${name}/${backendName}: worst ${Object.entries(worst)
          .map(([k, v]) => `${k} ${v.toExponential(1)}`)
          .join(', ')} (relative to max |TRL|; loss absolute)`,
      );
      policy.dispose();
      be.destroy();
    });
  });
});
