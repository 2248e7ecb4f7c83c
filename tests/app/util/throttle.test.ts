// The throttles that keep a fast run from flooding the page: the latest-value throttle (chart redraws, activity
// lines), the worker's activity-line throttle (order kept), and the cap on points a chart draws.
import { describe, expect, it } from 'vitest';
import {
  CHART_BUDGET,
  CHART_REDRAW_MAX_MS,
  CHART_REDRAW_MS,
  chartRedrawInterval,
} from '../../../src/app/components/charts/redraw-budget.ts';
import { thinEvenly } from '../../../src/app/components/charts/thin.ts';
import { throttleActivity } from '../../../src/app/worker/activity-throttle.ts';
import type { WorkerEvent } from '../../../src/app/worker/protocol.ts';
import { throttleLatest, type ThrottleClock } from '../../../src/app/util/throttle.ts';

/** A clock the test advances by hand; timers fire in time order when it passes them. */
function manualClock() {
  let t = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const clock: ThrottleClock = {
    now: () => t,
    setTimeout: (fn, ms) => (timers.set(nextId, { at: t + ms, fn }), nextId++),
    clearTimeout: (h) => void timers.delete(h as number),
  };
  const advance = (ms: number) => {
    const end = t + ms;
    for (;;) {
      const due = [...timers.entries()].filter(([, x]) => x.at <= end).toSorted((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      t = due[1].at;
      due[1].fn();
    }
    t = end;
  };
  return { clock, advance, pending: () => timers.size };
}

describe('throttleLatest', () => {
  it('delivers the first value at once, then at most one (the newest) per interval', () => {
    const { clock, advance } = manualClock();
    const got: [number, number][] = [];
    const th = throttleLatest<number>((v) => got.push([clock.now(), v]), 500, clock);
    th.push(1);
    expect(got).toEqual([[0, 1]]);
    // 100 values in 1 s (a step every 10 ms): two more deliveries, each the newest at the time
    for (let i = 2; i <= 101; i++) {
      advance(10);
      th.push(i);
    }
    advance(1000);
    expect(got).toEqual([
      [0, 1],
      [500, 50],
      [1000, 100],
      [1500, 101],
    ]);
  });

  it('an interval given as a function is read at each value: a slower redraw spaces the next ones out', () => {
    const { clock, advance } = manualClock();
    const got: [number, number][] = [];
    let drawMs = 0;
    const th = throttleLatest<number>(
      (v) => got.push([clock.now(), v]),
      () => chartRedrawInterval(drawMs),
      clock,
    );
    th.push(1);
    advance(100);
    th.push(2);
    advance(1000);
    // the last redraw took 300 ms: the next one comes 300 / CHART_BUDGET ms after it, with the newest value
    drawMs = 300;
    th.push(3);
    advance(100);
    th.push(4);
    advance(5000);
    expect(got).toEqual([
      [0, 1],
      [CHART_REDRAW_MS, 2],
      [CHART_REDRAW_MS + 300 / CHART_BUDGET, 4],
    ]);
  });

  it('the redraw interval: CHART_REDRAW_MS for cheap redraws, the budget above, capped', () => {
    expect(chartRedrawInterval(0)).toBe(CHART_REDRAW_MS);
    expect(chartRedrawInterval(Number.NaN)).toBe(CHART_REDRAW_MS);
    expect(chartRedrawInterval(CHART_REDRAW_MS * CHART_BUDGET * 0.5)).toBe(CHART_REDRAW_MS);
    expect(chartRedrawInterval(250)).toBeCloseTo(250 / CHART_BUDGET, 9);
    expect(chartRedrawInterval(60_000)).toBe(CHART_REDRAW_MAX_MS);
  });

  it('after a quiet period the next value goes out at once', () => {
    const { clock, advance, pending } = manualClock();
    const got: number[] = [];
    const th = throttleLatest<number>((v) => got.push(v), 500, clock);
    th.push(1);
    advance(2000);
    th.push(2);
    expect(got).toEqual([1, 2]);
    expect(pending()).toBe(0);
  });

  it('flush delivers the waiting value now; cancel drops it', () => {
    const { clock, advance } = manualClock();
    const got: number[] = [];
    const th = throttleLatest<number>((v) => got.push(v), 500, clock);
    th.push(1);
    th.push(2);
    th.flush();
    expect(got).toEqual([1, 2]);
    th.push(3);
    th.cancel();
    advance(5000);
    expect(got).toEqual([1, 2]);
    th.flush();
    expect(got).toEqual([1, 2]);
  });

  it('rejects a bad interval', () => {
    expect(() => throttleLatest(() => {}, Number.NaN)).toThrow(/interval/);
  });

  it('runs on the real timers', async () => {
    const got: number[] = [];
    const th = throttleLatest<number>((v) => got.push(v), 30);
    for (let i = 0; i < 20; i++) th.push(i);
    expect(got).toEqual([0]);
    await new Promise((r) => setTimeout(r, 80));
    expect(got).toEqual([0, 19]);
  });
});

const line = (n: number): WorkerEvent => ({ type: 'activity', step: 1, text: `rollout ${n} tokens` });

describe('throttleActivity (worker events)', () => {
  it('passes every non-activity event, at most one activity line per interval, and never reorders', async () => {
    const out: WorkerEvent[] = [];
    const emit = throttleActivity((e) => out.push(e), 50);
    for (let i = 0; i < 300; i++) emit(line(i));
    emit({ type: 'status', status: 'idle' });
    expect(out).toEqual([line(0), line(299), { type: 'status', status: 'idle' }]);
    // nothing is left to arrive after the status
    await new Promise((r) => setTimeout(r, 80));
    expect(out).toHaveLength(3);
  });
});

describe('thinEvenly (chart points)', () => {
  it('keeps short series whole', () => {
    expect(thinEvenly([1, 2, 3], 5)).toEqual([1, 2, 3]);
  });

  it('caps long series, keeping the first, the last and an even stride', () => {
    const steps = Array.from({ length: 2000 }, (_, i) => i + 1);
    const out = thinEvenly(steps, 300);
    expect(out.length).toBeLessThanOrEqual(300);
    expect(out.length).toBeGreaterThan(150);
    expect(out[0]).toBe(1);
    expect(out.at(-1)).toBe(2000);
    const gaps = new Set(out.slice(1, -1).map((s, i) => s - out[i]));
    expect(gaps.size).toBe(1);
  });

  it('rejects a cap below 2', () => {
    expect(() => thinEvenly([1, 2, 3], 1)).toThrow(/max/);
  });
});
