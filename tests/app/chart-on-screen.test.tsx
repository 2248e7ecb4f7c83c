// @vitest-environment happy-dom
// The curves redraw only the charts on screen: a chart the IntersectionObserver reports outside the viewport keeps
// the step count it last drew while steps stream in, and catches up with the latest step once it scrolls into
// view. happy-dom lays nothing out, so the observer here is one the test drives (which charts are on screen).
import { act } from '@testing-library/react';
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { metrics } from './helpers.ts';
import { renderApp } from './render-app.tsx';

type Callback = (entries: Array<{ isIntersecting: boolean; target: Element }>) => void;
const observers: Array<{ callback: Callback; targets: Element[] }> = [];

class DrivenIntersectionObserver {
  private readonly entry: { callback: Callback; targets: Element[] };
  constructor(callback: Callback) {
    this.entry = { callback, targets: [] };
    observers.push(this.entry);
  }
  observe(target: Element) {
    this.entry.targets.push(target);
  }
  unobserve() {}
  disconnect() {
    this.entry.targets = [];
  }
  takeRecords() {
    return [];
  }
}

/** reports `chart`'s figure on or off screen to the observers watching it */
function setOnScreen(chart: string, isIntersecting: boolean): void {
  const figure = document.querySelector(`[data-chart="${chart}"]`)!;
  act(() => {
    for (const o of observers) if (o.targets.includes(figure)) o.callback([{ isIntersecting, target: figure }]);
  });
}

const points = (chart: string) => document.querySelector(`[data-chart="${chart}"]`)?.getAttribute('data-points');

describe('charts off screen', () => {
  const original = globalThis.IntersectionObserver;
  beforeEach(() => {
    observers.length = 0;
    globalThis.IntersectionObserver = DrivenIntersectionObserver as unknown as typeof IntersectionObserver;
  });
  afterEach(() => {
    globalThis.IntersectionObserver = original;
  });

  it('an off-screen chart keeps its drawing while steps come in and catches up when it is on screen again', async () => {
    const { emit } = await renderApp('chart-on-screen');
    emit({ type: 'step', metrics: metrics(1), rollouts: [] });
    await vi.waitFor(() => expect(points('time')).toBe('1'));
    expect(points('reward')).toBe('1');
    setOnScreen('time', false);
    setOnScreen('reward', true);
    for (const s of [2, 3, 4]) emit({ type: 'step', metrics: metrics(s), rollouts: [] });
    await vi.waitFor(() => expect(points('reward')).toBe('4'), { timeout: 3000 });
    expect(points('time')).toBe('1');
    // the time chart's bars were drawn for one step only
    setOnScreen('time', true);
    await vi.waitFor(() => expect(points('time')).toBe('4'));
  });
});
