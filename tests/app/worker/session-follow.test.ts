// The followed problem in the worker's session (in-process, real engine and trainer on the tiny Qwen2.5 fixture):
// its greedy rollout arrives right after the model loads and before the start-up evaluation (the page's first
// rollout on screen), again every `every` steps, and for another problem when asked. Each comes twice: as soon as
// it is generated (not graded yet), then graded.
import { describe, expect, it } from 'vitest';
import { defaultFollowedIndex } from '../../../src/app/worker/follow.ts';
import { tinyArithProblems } from '../../../src/data/tiny-task/index.ts';
import { fixtureConfig, loadFixture, startSession } from '../../helpers/app/session-driver.ts';

describe('followed problem', () => {
  it('defaults to the first held-out problem with a loss', () => {
    const problems = tinyArithProblems({ split: 'heldout', count: 20, seed: 1 });
    const i = defaultFollowedIndex(problems);
    expect(problems[i].question).toMatch(/gives away|loses|sells/);
    expect(problems.slice(0, i).some((p) => /gives away|loses|sells/.test(p.question))).toBe(false);
  });

  it('comes before the start-up evaluation, then every `every` steps and on request', async () => {
    const s = startSession();
    s.request({ type: 'follow', index: -1, every: 2, minIntervalMs: 0 }, 'followed').catch(() => {});
    await loadFixture(s, fixtureConfig({ steps: 4 }));
    await s.request({ type: 'pause' }, 'evaluation');
    const order = s.events.filter((e) => e.type === 'followed' || e.type === 'evaluation').map((e) => e.type);
    expect(order).toEqual(['followed', 'followed', 'evaluation']);
    const [first, graded] = s.events.flatMap((e) => (e.type === 'followed' ? [e.rollout] : []));
    expect(first.step).toBe(0);
    expect(first.correct).toBeNull();
    expect(graded).toEqual({ ...first, correct: graded.correct, extracted: graded.extracted });
    expect(typeof graded.correct).toBe('boolean');
    expect(first.turns[0].role).toBe('meta');
    expect(first.question).toMatch(/gives away|loses|sells/);

    await s.request({ type: 'train' }, 'stopped');
    // refreshes during training are sent once, graded
    const steps = s.events.flatMap((e) => (e.type === 'followed' ? [e.rollout.step] : []));
    expect(steps).toEqual([0, 0, 2, 4]);

    const other = await s.request({ type: 'follow', index: 0, every: 2, minIntervalMs: 0 }, 'followed');
    expect(other.rollout).toMatchObject({ index: 0, step: 4, correct: null });
  });
});

describe('followed problem refreshes while training', () => {
  it('come at most once per minIntervalMs, whatever followEvery says', async () => {
    const s = startSession();
    s.request({ type: 'follow', index: -1, every: 1, minIntervalMs: 60_000 }, 'followed').catch(() => {});
    await loadFixture(s, fixtureConfig({ steps: 3, evalBeforeTrain: false }));
    await s.request({ type: 'train' }, 'stopped');
    // the load's rollout (sent before and after grading), then none: the three steps came within the minute
    expect(s.events.flatMap((e) => (e.type === 'followed' ? [e.rollout.step] : []))).toEqual([0, 0]);
    expect(s.events.filter((e) => e.type === 'step')).toHaveLength(3);
  });
});
