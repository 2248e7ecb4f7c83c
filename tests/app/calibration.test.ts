// The page's calibration (rl/calibration.ts through the worker's `calibrate` request) on the real session with the
// tiny Qwen2.5 fixture: it times a decode call, a scoring pass and a gradient chunk of the running config's step
// shape, and scales them to the step and the run; the estimate follows the config (more epochs, more steps).
import { expect, it } from 'vitest';
import { estimateRun } from '../../src/rl/calibration.ts';
import { parseHfConfig } from '../../src/engine/io/hf-config.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureConfig, loadFixture, startSession, TINY_QWEN_FOLDER } from '../helpers/app/session-driver.ts';

it('times the running config on the loaded model and gives a step and run estimate', async () => {
  const s = startSession();
  const config = fixtureConfig({ steps: 10, evalEvery: 5, evalBeforeTrain: true });
  await loadFixture(s, config);
  const e = await s.request({ type: 'calibrate', requestId: 7 }, 'calibration');
  expect(e.requestId).toBe(7);
  expect(e.model).toBe('local: tiny-qwen');
  const c = e.estimate;
  for (const t of [c.prefill_s, c.score_chunk_s, c.gradient_chunk_s]) expect(t).toBeGreaterThan(0);
  expect(c.per_token_s).toBeGreaterThanOrEqual(0);
  expect(c.step_s).toBeCloseTo(c.parts.rollout_s + c.parts.scoring_s + c.parts.update_s, 9);
  expect(c.evaluations).toBe(3);
  expect(c.run_s).toBeCloseTo(10 * c.step_s + 3 * c.eval_s, 9);
  // the session still trains afterwards (the calibration's gradients were cleared)
  const step = await s.request({ type: 'step' }, 'step');
  expect(step.metrics.step).toBe(1);
}, 60_000);

it('scales the measured shape to the config: epochs multiply the update, turns the rollout', () => {
  const model = parseHfConfig(JSON.parse(readFileSync(join(TINY_QWEN_FOLDER, 'config.json'), 'utf8')));
  const t = { prefill_s: 0.2, per_token_s: 0.01, score_chunk_s: 0.05, gradient_chunk_s: 0.15 };
  const base = fixtureConfig({ maxTurns: 2, ppoEpochs: 1, klBeta: 0 });
  const a = estimateRun(base, model, t);
  const b = estimateRun({ ...base, ppoEpochs: 3 }, model, t);
  expect(b.parts.update_s).toBeCloseTo(3 * a.parts.update_s, 9);
  const c = estimateRun({ ...base, maxTurns: 4 }, model, t);
  expect(c.parts.rollout_s).toBeCloseTo(2 * a.parts.rollout_s, 9);
  // 1 problem x G 2, 2 rounds = 4 messages of 6 tokens in one decode call each
  expect(a.parts.rollout_s).toBeCloseTo(4 * (0.2 + 5 * 0.01), 9);
});
