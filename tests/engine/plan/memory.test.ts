// The planner's memory model (src/engine/plan/memory.ts) against the allocation ledger of a real step on the
// real engine: decode a GRPO group (prefill of shared prompts + decode), one gradient chunk, one AdamW step and,
// in one case, a held-out evaluation decoding more distinct prompts than the group, on every golden model (their
// real weights) and on a Qwen-shaped random model (GQA, q/k/v biases, tied embeddings, llama3-scaled RoPE
// variant), LoRA and full fine-tuning, chunks that keep or recompute the layers, and on the WASM backend with
// f16 / bf16 base weights (matrices as 2-byte halves, vectors f32), and on WebGPU over an f16 base with the KV cache
// in f16 (its default there) or f32.
// The predicted total must be within 15% of the ledger's peak (in practice it is exact to a few bytes).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import type { KvCacheDtype } from '../../../src/engine/model/kv-cache.ts';
import { DEFAULT_KEEP_KV_BYTES } from '../../../src/engine/model/kv-keep.ts';
import { createEnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import type { ModelConfig, ModelWeights } from '../../../src/engine/model/config.ts';
import { planMemory, type MemoryShape } from '../../../src/engine/plan/memory.ts';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';
import { GOLDEN_ROOT as goldenRoot, goldenFixtures } from '../../helpers/golden-fixtures.ts';
import { getTestDevice, testBackend } from '../../helpers/webgpu.ts';

const goldens = goldenFixtures('config.json');

const optimizer = {
  lr: 1e-3,
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  weightDecay: 0.01,
  gradClip: 1,
  schedule: { kind: 'constant' as const, warmupSteps: 0 },
};

interface Step {
  /** GRPO: problems x group samples decoded in one call */
  problems: number;
  group: number;
  promptTokens: number;
  newTokens: number;
  /** gradient chunk: rows of `rowTokens` tokens, the last `trained` positions of each trained */
  rows: number;
  rowTokens: number;
  trained: number;
  training: MemoryShape['training'];
  activationBudgetBytes?: number;
  /** base weight storage (f16 / bf16 on the WASM backend) */
  weightDtype?: 'f32' | 'f16' | 'bf16';
  /** EnginePolicy's prefillTokens: padded prompt tokens per prefill pass */
  prefillTokens?: number;
  /** a held-out evaluation after the step: this many distinct prompts decoded greedily in one call */
  evalPrompts?: number;
  /** EnginePolicy's maxDecodeBatch (config decodeBatch): most sequences decoded together */
  decodeBatch?: number;
  /** run on WebGPU (Dawn, f16 storage advertised) instead of the CPU / WASM backend */
  webgpu?: boolean;
  /** EnginePolicy's kvCacheDtype (default 'auto') */
  kvCacheDtype?: KvCacheDtype;
  /** a second turn: each sequence's prompt and drawn tokens and this many more, decoded behind the kept rows of the
   *  first (which draws newTokens each, the last not fed back: the rest is 1 + nextTokens) */
  nextTokens?: number;
}

/** Runs the step on a fresh CPU backend (WASM for half weights); returns the ledger's peak bytes. */
async function measure(config: ModelConfig, weights: ModelWeights, s: Step): Promise<number> {
  const dawn = s.webgpu ? await getTestDevice() : null;
  const backend: Backend = dawn
    ? testBackend(dawn, { f16Storage: 'always' })
    : (s.weightDtype ?? 'f32') === 'f32'
      ? new CpuBackend()
      : await WasmBackend.create({ threads: 1 });
  const policy = createEnginePolicy({
    backend,
    config,
    weights,
    decoder: { decode: (ids: readonly number[]) => ids.join(' ') },
    training:
      s.training.mode === 'lora'
        ? { mode: 'lora', adapters: ['shared'], rank: s.training.rank, alpha: 16, targets: [...s.training.targets] }
        : { mode: 'full', adapters: ['shared'] },
    optimizer,
    seed: 1,
    ...(s.activationBudgetBytes !== undefined ? { activationBudgetBytes: s.activationBudgetBytes } : {}),
    ...(s.weightDtype !== undefined ? { baseDtype: s.weightDtype } : {}),
    ...(s.prefillTokens !== undefined ? { prefillTokens: s.prefillTokens } : {}),
    ...(s.decodeBatch !== undefined ? { maxDecodeBatch: s.decodeBatch } : {}),
    ...(s.kvCacheDtype !== undefined ? { kvCacheDtype: s.kvCacheDtype } : {}),
    ...(s.nextTokens !== undefined ? { keepKvBytes: DEFAULT_KEEP_KV_BYTES } : {}),
  });
  const V = config.vocabSize;
  const prompt = (p: number) => Array.from({ length: s.promptTokens }, (_, i) => 3 + ((p * 7 + i * 5) % (V - 3)));
  const requests = Array.from({ length: s.problems * s.group }, (_, i) => ({
    prompt: prompt(Math.floor(i / s.group)),
    adapter: 'shared',
    maxNewTokens: s.newTokens,
    stopStrings: [],
    stopTokenIds: [],
  }));
  const drawn = await policy.generate(requests, { temperature: 1, topP: 1, topK: 0, seed: 3 });
  if (s.nextTokens !== undefined) {
    const more = Array.from({ length: s.nextTokens }, (_, i) => 3 + ((i * 13) % (V - 3)));
    await policy.generate(
      requests.map((r, i) => ({ ...r, prompt: [...r.prompt, ...drawn[i].tokens, ...more] })),
      { temperature: 1, topP: 1, topK: 0, seed: 4 },
    );
  }
  policy.zeroGrad('shared');
  await policy.accumulateGradients(
    Array.from({ length: s.rows }, (_, r) => {
      const tokens = Array.from({ length: s.rowTokens }, (_x, i) => 3 + ((r * 11 + i * 3) % (V - 3)));
      const positions = Array.from({ length: s.trained }, (_x, i) => s.rowTokens - s.trained + i);
      return { tokens, positions, adapter: 'shared', coef: new Float32Array(s.trained).fill(0.1) };
    }),
  );
  await policy.optimizerStep('shared');
  if (s.evalPrompts !== undefined) {
    const held = Array.from({ length: s.evalPrompts }, (_, i) => ({
      prompt: prompt(100 + i),
      adapter: 'shared',
      maxNewTokens: s.newTokens,
      stopStrings: [],
      stopTokenIds: [],
    }));
    await policy.generate(held, { temperature: 0, topP: 1, topK: 0, seed: 0 });
  }
  const peak = backend.ledger().peakBytes;
  policy.dispose();
  backend.destroy();
  return peak;
}

function predict(config: ModelConfig, s: Step) {
  return planMemory(config, {
    weightDtype: s.weightDtype ?? 'f32',
    halfVectors: s.webgpu === true,
    ...(s.webgpu ? { backend: 'webgpu' as const } : {}),
    ...(s.kvCacheDtype !== undefined ? { kvCacheDtype: s.kvCacheDtype } : {}),
    ...(s.nextTokens !== undefined ? { keepKvBytes: DEFAULT_KEEP_KV_BYTES } : {}),
    training: s.training,
    decode: {
      sequences: s.problems * s.group,
      uniquePrompts: s.problems,
      promptTokens: s.promptTokens + (s.nextTokens !== undefined ? s.newTokens + s.nextTokens : 0),
      newTokens: s.newTokens,
      ...(s.prefillTokens !== undefined ? { prefillTokens: s.prefillTokens } : {}),
      ...(s.decodeBatch !== undefined ? { decodeBatch: s.decodeBatch } : {}),
      ...(s.nextTokens !== undefined
        ? { behind: { tokens: 1 + s.nextTokens, wholePromptTokens: s.promptTokens } }
        : {}),
    },
    gradient: { sequences: s.rows, tokens: s.rowTokens, selected: s.rows * s.trained },
    ...(s.evalPrompts !== undefined
      ? {
          evalDecode: {
            sequences: s.evalPrompts,
            uniquePrompts: s.evalPrompts,
            promptTokens: s.promptTokens,
            newTokens: s.newTokens,
            ...(s.decodeBatch !== undefined ? { decodeBatch: s.decodeBatch } : {}),
          },
        }
      : {}),
    ...(s.activationBudgetBytes !== undefined ? { activationBudgetBytes: s.activationBudgetBytes } : {}),
  });
}

const ALL = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];
const lora = (rank: number, targets = ALL): MemoryShape['training'] => ({ mode: 'lora', adapters: 1, rank, targets });

const steps: Record<string, Step> = {
  'lora, decode-heavy': {
    problems: 3,
    group: 4,
    promptTokens: 30,
    newTokens: 40,
    rows: 2,
    rowTokens: 16,
    trained: 6,
    training: lora(4),
  },
  'lora, distinct prompts': {
    problems: 6,
    group: 1,
    promptTokens: 24,
    newTokens: 30,
    rows: 2,
    rowTokens: 12,
    trained: 6,
    training: lora(8),
  },
  'lora, gradient-heavy, layers kept': {
    problems: 2,
    group: 2,
    promptTokens: 8,
    newTokens: 6,
    rows: 4,
    rowTokens: 30,
    trained: 12,
    training: lora(4),
  },
  'lora q/v, gradient-heavy, recompute': {
    problems: 1,
    group: 2,
    promptTokens: 6,
    newTokens: 4,
    rows: 6,
    rowTokens: 60,
    trained: 40,
    training: lora(2, ['q_proj', 'v_proj']),
    activationBudgetBytes: 0,
  },
  'lora, long distinct prompts, prefill in passes of 2 prompts': {
    problems: 8,
    group: 1,
    promptTokens: 40,
    newTokens: 4,
    rows: 2,
    rowTokens: 16,
    trained: 6,
    training: lora(4),
    prefillTokens: 80,
  },
  'lora, held-out evaluation of 24 distinct prompts after a group of 4': {
    problems: 1,
    group: 4,
    promptTokens: 30,
    newTokens: 30,
    rows: 2,
    rowTokens: 16,
    trained: 6,
    training: lora(4),
    evalPrompts: 24,
  },
  'lora, a second turn behind the kept rows of the first, in passes of 3 prompts': {
    problems: 3,
    group: 2,
    promptTokens: 20,
    newTokens: 12,
    rows: 2,
    rowTokens: 16,
    trained: 6,
    training: lora(4),
    nextTokens: 3,
    prefillTokens: 12,
  },
  'lora, a second turn behind the kept rows of the first, in one pass': {
    problems: 4,
    group: 3,
    promptTokens: 14,
    newTokens: 30,
    rows: 2,
    rowTokens: 16,
    trained: 6,
    training: lora(4),
    nextTokens: 5,
  },
  'full fine-tuning': {
    problems: 2,
    group: 2,
    promptTokens: 10,
    newTokens: 8,
    rows: 3,
    rowTokens: 24,
    trained: 10,
    training: { mode: 'full', adapters: 1 },
  },
  'lora, 4 problems x G 4 and 12 held-out prompts decoded 5 at a time (decodeBatch)': {
    problems: 4,
    group: 4,
    promptTokens: 30,
    newTokens: 40,
    rows: 2,
    rowTokens: 16,
    trained: 6,
    training: lora(4),
    evalPrompts: 12,
    decodeBatch: 5,
  },
};

async function check(config: ModelConfig, weights: ModelWeights, s: Step): Promise<void> {
  const peak = await measure(config, weights, s);
  const plan = predict(config, s);
  const err = Math.abs(plan.bytes.total - peak) / peak;
  expect(err, `planned ${plan.bytes.total} B vs ledger peak ${peak} B (${plan.peakStage} stage)`).toBeLessThanOrEqual(
    0.15,
  );
}

describe('planMemory vs the allocation ledger', () => {
  for (const name of goldens) {
    for (const [label, step] of Object.entries(steps)) {
      it(`${name}: ${label}`, async () => {
        const ckpt = await loadHfCheckpoint(directoryFileSource(join(goldenRoot, name)));
        await check(ckpt.config, ckpt.weights, step);
      });
    }
  }

  const qwen = tinyConfig({
    architecture: 'qwen2',
    hiddenSize: 56,
    intermediateSize: 304,
    numLayers: 3,
    numHeads: 7,
    numKvHeads: 1,
    headDim: 8,
    vocabSize: 300,
    attentionBias: true,
    tieWordEmbeddings: true,
    ropeTheta: 1e6,
  });
  for (const [label, step] of Object.entries(steps)) {
    it(`Qwen-shaped random model: ${label}`, async () => {
      await check(qwen, randomWeights(qwen, 5), step);
    });
  }
  const llama3 = tinyConfig({
    hiddenSize: 32,
    intermediateSize: 64,
    numLayers: 2,
    numHeads: 8,
    numKvHeads: 2,
    headDim: 4,
    vocabSize: 90,
    tieWordEmbeddings: true,
    ropeScaling: { type: 'llama3', factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 64 },
  });
  it('Llama-3-shaped random model with scaled RoPE', async () => {
    await check(llama3, randomWeights(llama3, 2), steps['lora, decode-heavy']);
  });

  for (const dtype of ['f16', 'bf16'] as const) {
    it(`WASM backend, ${dtype} base weights: Qwen-shaped random model and the golden qwen2 fixture`, async () => {
      await check(qwen, randomWeights(qwen, 5), { ...steps['lora, gradient-heavy, layers kept'], weightDtype: dtype });
      const ckpt = await loadHfCheckpoint(directoryFileSource(join(goldenRoot, 'qwen2-tied-gqa2')));
      await check(ckpt.config, ckpt.weights, { ...steps['lora, decode-heavy'], weightDtype: dtype });
    });
  }
  it('half weights: the plan saves what the ledger saves', async () => {
    const s = steps['lora, decode-heavy'];
    const w = randomWeights(qwen, 5);
    const saved = (await measure(qwen, w, s)) - (await measure(qwen, w, { ...s, weightDtype: 'f16' }));
    expect(saved).toBeGreaterThan(0);
    expect(predict(qwen, s).bytes.total - predict(qwen, { ...s, weightDtype: 'f16' }).bytes.total).toBe(saved);
  });

  it('WebGPU, f16 base: the KV cache in f16 (the default there) halves the planned kv_cache, and the plan saves what the ledger saves', async () => {
    // a long rollout of 32 sequences, so that decoding (its KV cache) sets the step's peak
    const s: Step = {
      ...steps['lora, decode-heavy'],
      problems: 2,
      group: 16,
      newTokens: 20,
      rows: 1,
      rowTokens: 6,
      trained: 2,
      weightDtype: 'f16',
      webgpu: true,
    };
    const w = randomWeights(qwen, 5);
    const [p16, p32] = [predict(qwen, s), predict(qwen, { ...s, kvCacheDtype: 'f32' })];
    expect([p16.kvCacheDtype, p32.kvCacheDtype]).toEqual(['f16', 'f32']);
    expect(2 * p16.bytes.kv_cache).toBe(p32.bytes.kv_cache);
    const saved = (await measure(qwen, w, { ...s, kvCacheDtype: 'f32' })) - (await measure(qwen, w, s));
    expect([p16.peakStage, p32.peakStage]).toEqual(['decode', 'decode']);
    expect(saved).toBeGreaterThan(0);
    expect(Math.abs(p32.bytes.total - p16.bytes.total - saved)).toBeLessThanOrEqual(0.15 * saved);
  });

  it('a held-out evaluation batch larger than the rollout sets the peak, in the plan as on the ledger', async () => {
    const s = steps['lora, held-out evaluation of 24 distinct prompts after a group of 4'];
    expect(predict(qwen, s).peakStage).toBe('eval');
    const { evalPrompts: _e, ...trainingOnly } = s;
    const w = randomWeights(qwen, 5);
    const [withEval, without] = [await measure(qwen, w, s), await measure(qwen, w, trainingOnly)];
    expect(withEval).toBeGreaterThan(1.15 * without); // the evaluation really is the step's peak
    const err = Math.abs(predict(qwen, s).bytes.total - withEval) / withEval;
    expect(err).toBeLessThanOrEqual(0.15);
  });

  it('decodeBatch below the batch: the plan saves what the ledger saves (KV cache and decode scratch of 5 sequences, not 16)', async () => {
    const s = steps['lora, 4 problems x G 4 and 12 held-out prompts decoded 5 at a time (decodeBatch)'];
    const { decodeBatch: _d, ...whole } = s;
    const w = randomWeights(llama3, 2);
    const [capped, all] = [await measure(llama3, w, s), await measure(llama3, w, whole)];
    expect(capped).toBeLessThan(0.85 * all); // the cap really lowers the peak
    const [pc, pa] = [predict(llama3, s), predict(llama3, whole)];
    expect(pc.bytes.kv_cache).toBeLessThan(pa.bytes.kv_cache);
    expect(Math.abs(pc.bytes.total - capped) / capped).toBeLessThanOrEqual(0.15);
    expect(Math.abs(pa.bytes.total - pc.bytes.total - (all - capped))).toBeLessThanOrEqual(0.15 * (all - capped));
  });

  it('the planned total moves with the workload the way the ledger does (decode stage)', async () => {
    const s = { ...steps['lora, decode-heavy'], group: 8, newTokens: 60 };
    const bigger = { ...s, group: 12, newTokens: 80 };
    const w = randomWeights(llama3, 2);
    const [a, b] = [await measure(llama3, w, s), await measure(llama3, w, bigger)];
    expect(predict(llama3, s).peakStage).toBe('decode');
    expect(b).toBeGreaterThan(a);
    const grown = predict(llama3, bigger).bytes.total - predict(llama3, s).bytes.total;
    expect(Math.abs(grown - (b - a))).toBeLessThanOrEqual(0.15 * (b - a));
  });
});
