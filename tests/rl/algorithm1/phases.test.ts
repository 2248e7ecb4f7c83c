// Single-turn ReMA as Algorithm 1 (paper §3.2.1, App. D.1), on the real engine. Each phase builds
// its agent's dataset once from a probe that is not trained on (counted here through the generate calls the policy
// receives), keeps the problems whose probe success rate lies in the window (checked against the probe's own
// answers graded again here, on the embedded tiny model, whose success rates differ between problems), trains
// phaseEpochs passes of fresh samples, and in the reasoning agent's phase the frozen meta agent writes planSamples
// plans per kept problem once, at the phase's start, whose (question, plan) pairs are the prompts a step counts.
import { describe, expect, it } from 'vitest';
import type { GenerateRequest, Policy, SamplingParams } from '../../../src/engine/policy/policy.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { loadHfTokenizer } from '../../../src/data/hf-tokenizer.ts';
import { tinyArithProblems } from '../../../src/data/tiny-task/dataset.ts';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { policyForConfig } from '../../../src/rl/policy-setup.ts';
import { createTrainer, type TrainerEvent } from '../../../src/rl/trainer.ts';
import { gradeAnswer } from '../../../src/rl/grade-in-thread.ts';
import { validateConfig } from '../../../src/rl/config.ts';
import { makeTrainer, smallConfig } from '../../helpers/rl/trainer-setup.ts';
import { TINY_MODEL_DIR } from '../../helpers/rl/tiny-tokenizer.ts';

interface Call {
  n: number;
  temperature: number;
  prompts: readonly GenerateRequest[];
}

/** the prompts of a generate call, each as one string */
const questions = (c: Call) => c.prompts.map((r) => r.prompt.join(','));

/** records every generate call the real policy receives (its number of requests and the temperature) */
function recordCalls(policy: Policy): Call[] {
  const calls: Call[] = [];
  const generate = policy.generate.bind(policy);
  policy.generate = async (requests, sampling: SamplingParams, onProgress) => {
    calls.push({ n: requests.length, temperature: sampling.temperature, prompts: requests });
    return generate(requests, sampling, onProgress);
  };
  return calls;
}

// a random model's 6-token plans are all truncated: stopWhenTruncated off so that every plan is answered
const small = (over = {}) =>
  smallConfig('rema-singleturn', {
    startAgent: 'reasoning',
    phaseEpochs: 1,
    probeSamples: 3,
    planSamples: 2,
    filterEpsMin: 0,
    filterEpsMax: 1,
    temperature: 0.9,
    stopWhenTruncated: false,
    ...over,
  });

describe('Algorithm 1 phases', () => {
  it('the probe is separate from the training samples; the plan set is written once per phase; phases alternate', async () => {
    const events: TrainerEvent[] = [];
    const { trainer, policy } = makeTrainer(small(), events);
    const calls = recordCalls(policy);
    const first = await trainer.step();
    // probe of the reasoning phase: one greedy plan for each of the 8 problems, 3 sampled answers each (not trained);
    // then the phase's plan set: 2 sampled plans for each kept problem (16 prompts); then the step: 2 of those
    // (question, plan) prompts, each answered groupSize = 2 times
    expect(calls.map((c) => [c.n, c.temperature])).toEqual([
      [8, 0],
      [24, 0.9],
      [16, 0.9],
      [4, 0.9],
    ]);
    expect(first.metrics.trained).toBe('reasoning');
    expect(first.metrics.rows_trained).toBe(4);
    expect(trainer.state().phase).toMatchObject({
      index: 0,
      agent: 'reasoning',
      problems: [0, 1, 2, 3, 4, 5, 6, 7],
      probed: 8,
      step: 1,
    });
    const logs = events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
    expect(
      logs.some((m) => /phase 1 \(reasoning agent\): the probe \(3 samples per problem\) kept 8 of 8/.test(m)),
    ).toBe(true);
    expect(logs).toContain(
      'phase 1 (reasoning agent): the frozen meta agent wrote 2 plans for each of 8 kept problems: 16 (question, plan) prompts, 2 per step',
    );
    // the rest of the phase (16 prompts / 2 per step, one pass): answers only, no new probe and no new plans
    calls.length = 0;
    for (let i = 0; i < 7; i++) await trainer.step();
    expect(calls.map((c) => [c.n, c.temperature])).toEqual(Array.from({ length: 7 }, () => [4, 0.9]));
    // the meta agent's phase: its own probe (3 sampled plans per problem, each answered greedily), then 2 x 2 sampled plans answered greedily
    calls.length = 0;
    const ninth = await trainer.step();
    expect(calls.map((c) => [c.n, c.temperature])).toEqual([
      [24, 0.9],
      [24, 0],
      [4, 0.9],
      [4, 0],
    ]);
    expect(ninth.metrics.trained).toBe('meta');
    expect(trainer.state().phase).toMatchObject({ index: 1, agent: 'meta', step: 1 });
  });

  it('every (question, plan) prompt is trained once per pass, and a restored state continues inside the phase', async () => {
    const config = small({ phaseEpochs: 2, planSamples: 0 });
    const { trainer, policy } = makeTrainer(config);
    const calls = recordCalls(policy);
    for (let i = 0; i < 8; i++) await trainer.step();
    // probe (2 calls), then one greedy plan per problem, written once; then 2 passes x 4 steps of 2 prompts x 2 answers
    expect(calls.slice(2).map((c) => [c.n, c.temperature])).toEqual([
      [8, 0],
      ...Array.from({ length: 8 }, () => [4, 0.9]),
    ]);
    const answers = calls.slice(3);
    const perPass = [answers.slice(0, 4), answers.slice(4)].map((pass) => new Set(pass.flatMap(questions)).size);
    expect(perPass).toEqual([8, 8]);
    // resume: a second trainer restored from the state after 5 steps probes nothing, writes the same plans again
    // from the phase's seed and continues the phase with the (question, plan) prompts of the first trainer's step 6
    // (the meta adapter is frozen in this phase; the answers differ, as only the trainer state is restored here)
    const { trainer: a } = makeTrainer(config);
    for (let i = 0; i < 5; i++) await a.step();
    const { trainer: b, policy: pb } = makeTrainer(config);
    b.restore(JSON.parse(JSON.stringify(a.state())));
    const bCalls = recordCalls(pb);
    const [sixthA, sixthB] = [await a.step(), await b.step()];
    expect(bCalls.map((c) => c.n)).toEqual([8, 4]);
    const prompts = (r: typeof sixthA) => r.rollouts.map((x) => [x.question, x.turns[0].role, x.turns[0].text]);
    expect(prompts(sixthB)).toEqual(prompts(sixthA));
    expect(prompts(sixthA).every(([, role]) => role === 'meta')).toBe(true);
    expect(b.state().phase).toMatchObject({ index: 0, step: 6 });
    expect(() => b.restore({ ...a.state(), phase: { ...a.state().phase!, problems: [99] } })).toThrow(
      /field "phase.problems" is invalid/,
    );
  });

  it('a phase whose probe keeps no problem hands over to the other agent; when neither keeps one, nothing trains', async () => {
    const events: TrainerEvent[] = [];
    // the random model never answers correctly: success rate 0, outside [0.2, 0.8]
    const { trainer } = makeTrainer(small({ filterEpsMin: 0.2, filterEpsMax: 0.8 }), events);
    const r = await trainer.step();
    expect(r.metrics.rows_trained).toBe(0);
    expect(r.metrics.frac_filtered_groups).toBe(1);
    expect(trainer.state().phase).toMatchObject({ index: 1, agent: 'meta', problems: [] });
    expect(events.filter((e) => e.type === 'log' && /kept 0 of 8/.test(e.message)).length).toBe(2);
  });

  it('keeps exactly the problems whose probe success rate lies in [0.2, 0.8] (embedded model)', async () => {
    const source = directoryFileSource(TINY_MODEL_DIR);
    const [checkpoint, tokenizer] = await Promise.all([loadHfCheckpoint(source), loadHfTokenizer(source)]);
    const config = {
      ...getPreset('rema-singleturn'),
      startAgent: 'reasoning' as const,
      probeSamples: 10,
      problemsPerStep: 2,
      groupSize: 2,
      planSamples: 1,
      evalEvery: 0,
      maxTokensPerTurn: 48,
    };
    const policy = policyForConfig(config, {
      backend: await WasmBackend.create(),
      checkpoint,
      decoder: tokenizer,
      seed: 0,
    });
    const problems = tinyArithProblems({ split: 'train', count: 12, seed: 11 });
    const trainer = createTrainer({ config, policy, tokenizer, train: problems, eval: problems.slice(0, 2) });
    const answers: string[] = [];
    const generate = policy.generate.bind(policy);
    let call = 0;
    policy.generate = async (requests, sampling, onProgress) => {
      const out = await generate(requests, sampling, onProgress);
      if (call++ === 1) answers.push(...out.map((g) => g.text)); // the probe's reasoning answers, problem-major
      return out;
    };
    await trainer.step();
    expect(answers.length).toBe(120);
    const rates = problems.map(
      (p, i) => answers.slice(10 * i, 10 * i + 10).filter((t) => gradeAnswer(p, t).correct).length / 10,
    );
    const inWindow = rates.flatMap((r, i) => (r >= 0.2 && r <= 0.8 ? [i] : []));
    expect(trainer.state().phase!.problems).toEqual(inWindow);
    // the model's rates differ: some problems are dropped and some kept
    expect(inWindow.length).toBeGreaterThan(0);
    expect(inWindow.length).toBeLessThan(problems.length);
  });

  it('needs single-turn with separate parameters; configs saved before read as the earlier schedule', () => {
    const base = getPreset('rema-multiturn');
    expect(() => validateConfig({ phaseEpochs: 2 }, 'f.json', base)).toThrow(
      /field "phaseEpochs" \(2: Algorithm 1 phases\) needs mode "single-turn" with paramMode "separate"/,
    );
    const {
      phaseEpochs: _a,
      probeSamples: _b,
      planSamples: _c,
      klPlacement: _d,
      ...old
    } = getPreset('rema-singleturn');
    expect(validateConfig(old, 'old config.json')).toMatchObject({
      phaseEpochs: 0,
      probeSamples: 10,
      planSamples: 0,
      klPlacement: 'loss',
    });
    expect(getPreset('rema-singleturn')).toMatchObject({
      phaseEpochs: 4,
      probeSamples: 10,
      planSamples: 4,
      filterEpsMin: 0.2,
      filterEpsMax: 0.8,
      klPlacement: 'reward',
      klBeta: 0.01,
    });
  });
});
