// @vitest-environment happy-dom
// The hooks by which a chart off screen is not redrawn (charts/use-on-screen.ts): useOnScreen follows the
// IntersectionObserver, and useHeldUnless keeps what was shown while the element is off screen and catches up once
// it is on screen again. happy-dom lays nothing out, so the observer here is one the test drives.
import { act, render } from '@testing-library/react';
import { useRef } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useHeldUnless, useOnScreen } from '../../../../src/app/components/charts/use-on-screen.ts';

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

/** a chart's figure in miniature: its data-points is the value it shows */
function Probe({ value }: { value: number }) {
  const ref = useRef<HTMLDivElement>(null);
  const onScreen = useOnScreen(ref);
  const shown = useHeldUnless(value, onScreen);
  return <div ref={ref} data-chart="probe" data-points={shown} data-on-screen={String(onScreen)} />;
}

describe('charts off screen', () => {
  const original = globalThis.IntersectionObserver;
  beforeEach(() => {
    observers.length = 0;
    globalThis.IntersectionObserver = DrivenIntersectionObserver as unknown as typeof IntersectionObserver;
  });
  afterEach(() => {
    globalThis.IntersectionObserver = original;
  });

  it('useOnScreen follows the observer; useHeldUnless keeps the value from the last time it was live', () => {
    const { rerender } = render(<Probe value={1} />);
    expect(points('probe')).toBe('1');
    setOnScreen('probe', false);
    rerender(<Probe value={2} />);
    rerender(<Probe value={3} />);
    expect(points('probe')).toBe('1');
    setOnScreen('probe', true);
    expect(points('probe')).toBe('3');
    rerender(<Probe value={4} />);
    expect(points('probe')).toBe('4');
  });
});
