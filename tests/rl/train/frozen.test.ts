// The trainer with a frozen agent (config.frozenAgent + TrainerOptions.frozen): the reasoning agent is the shipped
// tiny-rema run by onnxruntime-node (its ONNX export), the meta-thinking agent is the same model on our engine
// (CPU backend) with LoRA. With lr 0 the episodes equal those of the all-engine run with the same seed (the two
// runtimes agree on the logits, so seeded sampling draws the same tokens); only meta turns are trained; the meta
// adapter moves with lr > 0; mismatched options fail with errors naming the field.
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { ortNode } from '../../../src/cli/onnx-agent.ts';
import { loadHfTokenizer } from '../../../src/data/hf-tokenizer.ts';
import type { ChatTokenizer } from '../../../src/data/tokenizer.ts';
import { tinyArithProblems } from '../../../src/data/tiny-task/dataset.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import type { EnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { validateConfig, type ExperimentConfig } from '../../../src/rl/config.ts';
import { loadOnnxAgent, type OnnxAgent } from '../../../src/rl/frozen-agent.ts';
import type { RolloutRecord } from '../../../src/rl/metrics.ts';
import { policyForConfig } from '../../../src/rl/policy-setup.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { createTrainer, type FrozenAgentOptions } from '../../../src/rl/trainer.ts';

const files = directoryFileSource(resolve(import.meta.dirname, '../../../public/models/tiny-rema'), 'tiny-rema');
let checkpoint: HfCheckpoint;
let tokenizer: ChatTokenizer;
let onnx: OnnxAgent;

beforeAll(async () => {
  [checkpoint, tokenizer, onnx] = await Promise.all([
    loadHfCheckpoint(files),
    loadHfTokenizer(files),
    loadOnnxAgent(files, ortNode),
  ]);
});

function small(over: Partial<ExperimentConfig>): ExperimentConfig {
  return validateConfig(
    {
      problemsPerStep: 2,
      groupSize: 2,
      maxTokensPerTurn: 40,
      evalSize: 2,
      evalEvery: 0,
      evalBeforeTrain: false,
      ...over,
    },
    'test',
    getPreset('tiny-default'),
  );
}

async function trainerFor(config: ExperimentConfig, frozen?: FrozenAgentOptions) {
  const policy: EnginePolicy = policyForConfig(config, { backend: new CpuBackend(), checkpoint, decoder: tokenizer });
  const trainer = createTrainer({
    config,
    policy,
    tokenizer,
    train: tinyArithProblems({ split: 'train', count: 8, seed: 3 }),
    eval: tinyArithProblems({ split: 'heldout', count: 2, seed: 3 }),
    ...(frozen ? { frozen } : {}),
  });
  return { trainer, policy };
}

/** The ONNX agent as the frozen reasoning agent; `generated` counts the tokens it wrote (it must write every reasoning turn). */
function frozenReasoning(): FrozenAgentOptions & { generated: { tokens: number } } {
  const generated = { tokens: 0 };
  const policy = Object.create(onnx.policy) as typeof onnx.policy;
  policy.generate = async (...args: Parameters<typeof onnx.policy.generate>) => {
    const out = await onnx.policy.generate(...args);
    generated.tokens += out.reduce((a, g) => a + g.tokens.length, 0);
    return out;
  };
  return { role: 'reasoning', policy, tokenizer: onnx.tokenizer, generated };
}
const reasoningTokens = (rs: readonly RolloutRecord[]) =>
  rs.reduce((a, r) => a + r.turns.filter((t) => t.role === 'reasoning').reduce((b, t) => b + t.tokens, 0), 0);
const texts = (rs: readonly RolloutRecord[]) => rs.map((r) => r.turns.map((t) => `${t.role}: ${t.text}`));
/** number of turns per role that carry trained-token records (the update stage's rows) */
const trainedTurns = (rs: readonly RolloutRecord[]) => {
  const n = { meta: 0, reasoning: 0 };
  for (const r of rs) for (const t of r.turns) if (t.pieces) n[t.role] += 1;
  return n;
};

describe('trainer with a frozen ONNX reasoning agent', () => {
  it('lr 0: the same episodes as the all-engine run; only meta turns are trained', async () => {
    const config = small({ lr: 0, temperature: 1, seed: 4 });
    const frozen = frozenReasoning();
    const withFrozen = await trainerFor({ ...config, frozenAgent: 'reasoning' }, frozen);
    const engineOnly = await trainerFor(config);
    const a = await withFrozen.trainer.step();
    const b = await engineOnly.trainer.step();
    expect(frozen.generated.tokens).toBe(reasoningTokens(a.rollouts)); // every reasoning turn came from onnxruntime
    expect(frozen.generated.tokens).toBeGreaterThan(0);
    expect(texts(a.rollouts)).toEqual(texts(b.rollouts));
    expect(a.rollouts.map((r) => r.reward)).toEqual(b.rollouts.map((r) => r.reward));
    expect(a.metrics.len_reason_mean).toBe(b.metrics.len_reason_mean); // both agents' lengths are still reported
    expect(a.metrics.len_reason_mean).toBeGreaterThan(0);
    // the frozen run trains exactly the meta rows the all-engine run trains, and no reasoning row
    const [ta, tb] = [trainedTurns(a.rollouts), trainedTurns(b.rollouts)];
    expect(ta.reasoning).toBe(0);
    expect(tb.reasoning).toBeGreaterThan(0);
    expect(ta.meta).toBe(tb.meta);
    expect(ta.meta).toBeGreaterThan(0);
    expect(a.metrics.rows_trained).toBeLessThan(b.metrics.rows_trained ?? 0);
    // greedy evaluation runs the frozen agent too
    const [ea, eb] = [await withFrozen.trainer.evaluate(), await engineOnly.trainer.evaluate()];
    expect(texts(ea.rollouts)).toEqual(texts(eb.rollouts));
    withFrozen.policy.dispose();
    engineOnly.policy.dispose();
  }, 60_000);

  it('separate parameters: only the meta adapter exists and trains, at every step', async () => {
    const config = small({
      paramMode: 'separate',
      switchEvery: 1,
      startAgent: 'reasoning',
      frozenAgent: 'reasoning',
      lr: 1e-2,
      temperature: 1,
      seed: 1,
    });
    const { trainer, policy } = await trainerFor(config, frozenReasoning());
    expect(policy.adapters).toEqual(['meta']);
    const before = await policy.saveAdapter('meta');
    const steps = [await trainer.step(), await trainer.step()];
    expect(steps.map((s) => s.metrics.trained)).toEqual(['meta', 'meta']);
    for (const s of steps) expect(trainedTurns(s.rollouts).reasoning).toBe(0);
    expect(steps.some((s) => s.metrics.grad_norm > 0)).toBe(true);
    const after = await policy.saveAdapter('meta');
    expect(after['adapter_model.safetensors']).not.toEqual(before['adapter_model.safetensors']);
    policy.dispose();
  }, 60_000);

  it('refuses a missing, unwanted or mismatched frozen agent, and frozenAgent outside two-agent modes', async () => {
    const config = small({ frozenAgent: 'reasoning' });
    await expect(trainerFor(config)).rejects.toThrow(
      'createTrainer: config.frozenAgent is "reasoning" but no frozen agent was given',
    );
    await expect(trainerFor(config, { ...frozenReasoning(), role: 'meta' })).rejects.toThrow(
      'createTrainer: config.frozenAgent is "reasoning" but the frozen agent given plays "meta"',
    );
    await expect(trainerFor(small({}), frozenReasoning())).rejects.toThrow(
      'a frozen reasoning agent was given but config.frozenAgent is "none"',
    );
    expect(() =>
      validateConfig({ frozenAgent: 'meta', mode: 'vrp', maxTurns: 1, steps: 0 }, 'x', getPreset('tiny-default')),
    ).toThrow(/field "frozenAgent" \("meta"\) needs a two-agent mode \(multi-turn or single-turn\), not "vrp"/);
    expect(() => validateConfig({ frozenAgent: 'both' }, 'x', getPreset('tiny-default'))).toThrow(
      /field "frozenAgent" must be one of none \| meta \| reasoning/,
    );
    // a config saved before the field existed reads as "none"
    const { frozenAgent: _omitted, ...old } = getPreset('rema-multiturn');
    expect(validateConfig(old, 'saved run').frozenAgent).toBe('none');
  });
});
