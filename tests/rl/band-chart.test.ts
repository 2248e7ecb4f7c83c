// The one band-chart writer (src/rl/band-chart.ts) that `rema sweep`, the page and the report scripts share:
// stacked panels with their own axis labels and ticks, a mean line over a min..max band per series, a dot for a
// single point, one legend whose colors follow the names' first appearance, and escaped labels.
import { describe, expect, it } from 'vitest';
import { bandChartSvg, ticks } from '../../src/rl/band-chart.ts';

const flat = (name: string, steps: number[], y: number) => ({
  name,
  points: steps.map((step) => ({ step, mean: y, min: y - 0.1, max: y + 0.1 })),
});

describe('bandChartSvg', () => {
  const svg = bandChartSvg({
    title: 'two <panels>',
    width: 500,
    panelHeight: 100,
    panels: [
      {
        title: 'reward',
        xLabel: 'step',
        yLabel: 'reward',
        series: [flat('a', [0, 10, 20], 0.5), flat('b&c', [0, 20], 0.2)],
      },
      { title: 'loss', xLabel: 'SFT step', yLabel: 'nll', series: [flat('b&c', [5], 1), flat('d', [0, 5], 2)] },
    ],
  });

  it('draws each panel with its own title, axis labels and ticks', () => {
    expect([...svg.matchAll(/<g class="panel" data-quantity="([^"]+)">/g)].map((m) => m[1])).toEqual([
      'reward',
      'loss',
    ]);
    expect(svg).toContain('>SFT step</text>');
    expect(svg).toMatch(/transform="rotate\(-90 [\d.]+ [\d.]+\)">nll<\/text>/);
    // the reward panel's x ticks: 0, 5, ..., 20 (ticks() of the step range)
    expect(ticks(0, 20)).toEqual([0, 5, 10, 15, 20]);
    const rewardPanel = svg.slice(svg.indexOf('data-quantity="reward"'), svg.indexOf('data-quantity="loss"'));
    expect([...rewardPanel.matchAll(/text-anchor="middle">(\d+)<\/text>/g)].map((m) => Number(m[1]))).toEqual([
      0, 5, 10, 15, 20,
    ]);
    expect(svg).toMatch(/^<svg [^>]*width="500"/);
  });

  it('a series is a band under a mean line; one point is a dot', () => {
    const series = [
      ...svg.matchAll(
        /<g class="series" data-config="([^"]+)">\n<polygon class="band"[^>]*>\n<(path|circle) class="mean"/g,
      ),
    ];
    expect(series.map((m) => [m[1], m[2]])).toEqual([
      ['a', 'path'],
      ['b&amp;c', 'path'],
      ['b&amp;c', 'circle'],
      ['d', 'path'],
    ]);
  });

  it('one legend over the panels, colored by first appearance, title escaped', () => {
    const legend = [...svg.matchAll(/<g class="legend" data-config="([^"]+)"><rect [^>]*fill="(#[0-9a-f]+)"/g)];
    expect(legend.map((m) => m[1])).toEqual(['a', 'b&amp;c', 'd']);
    expect(new Set(legend.map((m) => m[2])).size).toBe(3);
    const bandColor = (name: string) =>
      [...svg.matchAll(new RegExp(`data-config="${name}">\\n<polygon class="band"[^>]*fill="(#[0-9a-f]+)"`, 'g'))].map(
        (m) => m[1],
      );
    expect(bandColor('b&amp;c')).toEqual([legend[1][2], legend[1][2]]);
    expect(svg).toContain('<title>two &lt;panels&gt;</title>');
  });

  it('a flat series gets a unit-high range instead of dividing by zero', () => {
    const one = bandChartSvg({
      title: 't',
      panels: [
        {
          title: 'p',
          xLabel: 'x',
          yLabel: 'y',
          series: [{ name: 's', points: [{ step: 3, mean: 1, min: 1, max: 1 }] }],
        },
      ],
    });
    expect(one).not.toContain('NaN');
    expect(one).toContain('<circle class="mean"');
  });
});
