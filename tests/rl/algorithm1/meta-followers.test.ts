// The meta-thinking agent's reward in single-turn ReMA is a statistic of the reasoning answers to its plan (App. C.2:
// their mean correctness, or their agreement for the consistency reward). With one answer per plan the agreement is
// always 1 once an answer is found, so such a setting is refused; with metaFollowers k the meta steps answer every
// plan k times at the rollout temperature, score the plan on those k answers and train one meta row per plan.
// Scripted replies drive the rollout where the answers must be chosen (judge verdicts); the trainer runs on the
// real engine with a random model for the call and row counts.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../src/data/problem.ts';
import type { SamplingParams } from '../../../src/engine/policy/policy.ts';
import { validateConfig, type ExperimentConfig } from '../../../src/rl/config.ts';
import { scoreEpisodes } from '../../../src/rl/grade-in-thread.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { promptsFor } from '../../../src/rl/prompts/index.ts';
import { freshEpisodes, runEpisodes, stepPlan } from '../../../src/rl/train/episodes.ts';
import { phaseStepPlan } from '../../../src/rl/train/phases.ts';
import { buildRows } from '../../../src/rl/train/rows.ts';
import { scriptedPolicy } from '../../helpers/rl/scripted-policy.ts';
import { tinyTokenizer } from '../../helpers/rl/tiny-tokenizer.ts';
import { makeTrainer, smallConfig } from '../../helpers/rl/trainer-setup.ts';

const tok = tinyTokenizer();
const judge: Problem = { id: 'j', task: 'judge', question: 'Which answer is better, A or B?', answer: 'A' };
const sampling: SamplingParams = { temperature: 0.8, topP: 1, topK: 0, seed: 3 };
const consistency: ExperimentConfig = {
  ...getPreset('rema-singleturn'),
  singleTurnReward: 'consistency',
  groupSize: 2,
};

/** The meta phase's rollout of one judge problem: groupSize plans, then the scripted verdicts as the answers. */
async function metaPhase(config: ExperimentConfig, verdicts: string[]) {
  const plan = phaseStepPlan(config, 'meta');
  const policy = scriptedPolicy(tok, [
    [{ text: 'Check A.' }, { text: 'Check B.' }],
    verdicts.map((text) => ({ text })),
  ]);
  const prompts = promptsFor('tiny', 'single-turn', 'judge');
  const settings = {
    policy,
    tokenizer: tok,
    prompts,
    adapterFor: () => 'meta',
    maxTurns: 1,
    maxTokensPerTurn: 40,
    maxPromptTokens: 400,
    maxContext: 512,
    stopWhenTruncated: true,
  };
  const eps = freshEpisodes([judge], config.groupSize * plan.followers, 'two-agent');
  await runEpisodes(settings, config, eps, sampling, plan);
  const scored = scoreEpisodes(config, eps, plan.onePlanPerGroup);
  const rows = buildRows(
    tok,
    prompts,
    scored,
    plan.trained,
    () => true,
    () => 'meta',
  );
  return { policy, eps, scored, rows };
}

describe('reasoning answers per plan when the meta agent trains', () => {
  it('refuses the consistency reward with one answer per plan, where [[A]], [[B]], [[A]], [[B]] would all earn 1', async () => {
    expect(() => validateConfig(consistency, 'run.json')).toThrow(
      /run\.json: .*field "singleTurnReward" \("consistency".*needs metaFollowers >= 2: with one answer per plan the agreement is always 1/s,
    );
    // what that setting computes: each plan's single answer agrees with itself
    const { scored } = await metaPhase(consistency, ['[[A]]', '[[B]]', '[[A]]', '[[B]]'].slice(0, 2));
    expect(scored.map((s) => s.reward.meta)).toEqual([1, 1]);
    expect(validateConfig({ ...consistency, metaFollowers: 2 }, 'run.json').metaFollowers).toBe(2);
  });

  it('with 2 answers per plan the plans of [[A]], [[B]], [[A]], [[B]] earn 0.5 (consistency) and their mean correctness (base)', async () => {
    const config = { ...consistency, metaFollowers: 2 };
    const { policy, eps, scored, rows } = await metaPhase(config, ['[[A]]', '[[B]]', '[[A]]', '[[B]]']);
    // 2 sampled plans, then 2 answers to each, sampled at the rollout temperature (not greedy)
    expect(policy.calls.map((c) => [c.requests.length, c.sampling.temperature])).toEqual([
      [2, 0.8],
      [4, 0.8],
    ]);
    expect(eps.map((e) => [e.messages[0].text, e.follower])).toEqual([
      ['Check A.', 0],
      ['Check A.', 1],
      ['Check B.', 0],
      ['Check B.', 1],
    ]);
    expect(scored.map((s) => s.reward.meta)).toEqual([0.5, 0.5, 0.5, 0.5]);
    // one meta row per plan, not per answer
    expect(rows.map((r) => [r.episode, r.reward])).toEqual([
      [0, 0.5],
      [2, 0.5],
    ]);
    const agree = await metaPhase(config, ['[[A]]', '[[A]]', '[[A]]', '[[B]]']);
    expect(agree.scored.map((s) => s.reward.meta)).toEqual([1, 1, 0.5, 0.5]);
    const base = await metaPhase({ ...config, singleTurnReward: 'base' }, ['[[B]]', '[[B]]', '[[A]]', '[[B]]']);
    expect(base.scored.map((s) => s.reward.meta)).toEqual([0, 0, 0.5, 0.5]);
  });

  it('only the steps that train the meta agent answer a plan several times', () => {
    const c = { ...getPreset('rema-singleturn'), metaFollowers: 3 };
    expect(phaseStepPlan(c, 'meta').followers).toBe(3);
    expect(phaseStepPlan(c, 'reasoning').followers).toBe(1);
    expect(stepPlan({ ...c, paramMode: 'shared', phaseEpochs: 0 }, 0, 'shared').followers).toBe(3);
    expect(stepPlan(getPreset('rema-multiturn'), 0, 'shared').followers).toBe(1);
    expect(() => validateConfig({ metaFollowers: 2 }, 'f.json', getPreset('rema-multiturn'))).toThrow(
      /field "metaFollowers" \(2 reasoning answers per plan\) needs mode "single-turn"/,
    );
  });

  it('a trainer step of the meta phase: groupSize sampled plans per problem, each answered k times, one row per plan', async () => {
    const config = smallConfig('rema-singleturn', {
      startAgent: 'meta',
      phaseEpochs: 1,
      probeSamples: 2,
      filterEpsMin: 0,
      filterEpsMax: 1,
      temperature: 0.9,
      stopWhenTruncated: false,
      singleTurnReward: 'consistency',
      metaFollowers: 2,
    });
    const { trainer, policy } = makeTrainer(validateConfig(config, 'test'));
    const calls: [number, number][] = [];
    const generate = policy.generate.bind(policy);
    policy.generate = async (requests, s, onProgress) => {
      calls.push([requests.length, s.temperature]);
      return generate(requests, s, onProgress);
    };
    const r = await trainer.step();
    // the probe (2 sampled plans per problem for 8 problems, each answered greedily once), then the step:
    // 2 problems x 2 plans, each answered twice at the rollout temperature
    expect(calls).toEqual([
      [16, 0.9],
      [16, 0],
      [4, 0.9],
      [8, 0.9],
    ]);
    expect(r.metrics.trained).toBe('meta');
    expect(r.metrics.rows_trained).toBe(4);
    expect(r.rollouts.length).toBe(8);
  });
});
