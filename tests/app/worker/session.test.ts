// The worker's session run in-process (the same code the Web Worker runs) on the real engine and trainer: load
// a local model folder (the committed tiny Qwen2.5 fixture) on the CPU backend, run a step, intervene on a
// plan, export the adapter. Sizes are minimal so the file takes seconds.
import { describe, expect, it } from 'vitest';
import { fixtureConfig, loadFixture, startSession } from '../../helpers/app/session-driver.ts';

const config = fixtureConfig();

describe('in-process session on the real engine', () => {
  it('loads a local folder, trains a step, follows an edited plan, exports the adapter', async () => {
    const s = startSession();
    const ready = await loadFixture(s, config);
    expect(ready.backend.kind === 'wasm' || ready.backend.kind === 'cpu').toBe(true);
    expect(ready.backend.cpuReason).toContain('backend menu');
    expect(ready.model).toMatchObject({ name: 'local: tiny-qwen', architecture: 'qwen2' });
    // evalBeforeTrain: the baseline evaluation follows the load and brings the first rollouts
    const baseline =
      s.events.find((e) => e.type === 'evaluation') ?? (await s.request({ type: 'pause' }, 'evaluation'));
    expect(baseline).toMatchObject({ type: 'evaluation', step: 0, n: 2 });
    if (baseline.type === 'evaluation') expect(baseline.rollouts).toHaveLength(2);

    const step = await s.request({ type: 'step' }, 'step');
    expect(step.metrics.step).toBe(1);
    expect(step.rollouts).toHaveLength(2);
    expect(step.rollouts[0].turns[0].role).toBe('meta');
    // where the step's time went (bench/browser/page-train.ts reads it): the trainer's step within the job's span,
    // (almost) no time for the device-loss copy off WebGPU, wall-clock instants in ms since the epoch
    const timing = step.timing!;
    expect(timing.trainer_ms).toBeGreaterThan(0);
    expect(timing.keep_ms).toBeGreaterThanOrEqual(0);
    expect(timing.keep_ms).toBeLessThan(50);
    expect(timing.sent_at - timing.started_at).toBeGreaterThanOrEqual(timing.trainer_ms - 1e-6);
    expect(Math.abs(timing.sent_at - Date.now())).toBeLessThan(60_000);

    const problem = step.rollouts[0];
    const plan = 'Add the numbers.';
    const iv = await s.request(
      {
        type: 'intervene',
        requestId: 7,
        question: problem.question,
        gold: problem.gold,
        plan,
        originalPlan: problem.turns[0].text,
      },
      'intervention',
    );
    expect(iv.requestId).toBe(7);
    expect(iv.result.edited.plan).toBe(plan);
    expect(iv.result.edited.tokens).toBeGreaterThan(0);
    expect(iv.result.step).toBe(1);

    // Train runs until the config's step count, then says it stopped
    const stopped = await s.request({ type: 'train' }, 'stopped');
    expect(stopped).toEqual({ type: 'stopped', reason: 'finished' });
    expect(s.events.filter((e) => e.type === 'step').map((e) => (e.type === 'step' ? e.metrics.step : 0))).toEqual([
      1, 2,
    ]);

    const adapter = await s.request({ type: 'exportLora', requestId: 8 }, 'lora');
    expect(Object.keys(adapter.files).toSorted()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    const peft = JSON.parse(new TextDecoder().decode(adapter.files['adapter_config.json']));
    expect(peft.r).toBe(config.loraRank);
  });

  it('a folder that is not a model gives a fatal error naming the file', async () => {
    const s = startSession();
    const bad = new Map([['config.json', new File(['{ not json'], 'config.json')]]);
    const err = await s.request(
      { type: 'load', model: { kind: 'local', name: 'broken', files: bad }, backend: 'wasm', config },
      'error',
    );
    expect(err.type).toBe('error');
    if (err.type === 'error') {
      expect(err.fatal).toBe(true);
      expect(err.message).toContain('could not load the model "local: broken"');
    }
  });
});
