// Sweep grids: every combination in a stable order, bundles (object values) set several fields together,
// labels and CSV cells are plain text; the per-config spread over seeds and the overlaid-curves SVG.
import { describe, expect, it } from 'vitest';
import { gridPoints, parseGrid, pointLabel, pointOverrides, toCsv } from '../../src/cli/sweep.ts';
import { ablationSvg, band, meanArea, spread, type RunCurves } from '../../src/rl/ablation-curves.ts';

describe('sweep grids', () => {
  it('enumerates every combination, first key slowest', () => {
    const points = gridPoints({ ratio: ['token', 'turn-geometric'], seed: [0, 1] });
    expect(points).toEqual([
      { ratio: 'token', seed: 0 },
      { ratio: 'token', seed: 1 },
      { ratio: 'turn-geometric', seed: 0 },
      { ratio: 'turn-geometric', seed: 1 },
    ]);
    expect(gridPoints({})).toEqual([{}]);
  });
  it('merges bundles and labels them readably', () => {
    const p = { variant: { ratio: 'token', aggregation: 'seq-mean-token-mean' }, paramMode: 'separate' };
    expect(pointOverrides(p)).toEqual({ ratio: 'token', aggregation: 'seq-mean-token-mean', paramMode: 'separate' });
    expect(pointLabel(p)).toBe('variant=ratio:token+aggregation:seq-mean-token-mean,paramMode=separate');
  });
  it('rejects malformed grids and quotes CSV cells that need it', () => {
    expect(() => parseGrid({ ratio: [] }, 'g')).toThrow(/g: grid field "ratio" must be a non-empty list/);
    expect(() => parseGrid([1], 'g')).toThrow(/g: the grid must be a JSON object/);
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', 0.1234567891],
          [null, 'q"'],
        ],
      ),
    ).toBe('a,b\n"x,y",0.123457\n,"q"""\n');
  });
});

function run(config: string, seed: number, rewards: number[], evals: Array<[number, number]> = []): RunCurves {
  return {
    config,
    seed,
    reward: rewards.map((value, i) => ({ step: i + 1, value })),
    eval: evals.map(([step, value]) => ({ step, value })),
  };
}

describe("ablation curves over seeds (the sweep's summary and chart)", () => {
  it('spread: mean, min, max and sample std over seeds, skipping missing values', () => {
    const s = spread([0.2, 0.4, Number.NaN, 0.9]);
    expect(s.n).toBe(3);
    expect(s.mean).toBeCloseTo(0.5, 12);
    expect([s.min, s.max]).toEqual([0.2, 0.9]);
    expect(s.std).toBeCloseTo(Math.sqrt((0.3 ** 2 + 0.1 ** 2 + 0.4 ** 2) / 2), 12);
    expect(spread([3]).std).toBe(0);
    expect(spread([]).n).toBe(0);
  });

  it('band: per step over the seeds that reached it; meanArea: trapezoids over the step span', () => {
    expect(band([run('a', 0, [0, 1, 1]).reward, run('a', 1, [1, 0]).reward])).toEqual([
      { step: 1, mean: 0.5, min: 0, max: 1, n: 2 },
      { step: 2, mean: 0.5, min: 0, max: 1, n: 2 },
      { step: 3, mean: 1, min: 1, max: 1, n: 1 },
    ]);
    expect(meanArea(run('a', 0, [0, 1, 1]).reward)).toBeCloseTo(0.75, 12);
    expect(meanArea(run('a', 0, [0.4]).reward)).toBe(0.4);
  });

  it('the SVG overlays one series per config (mean line + min-max band) per panel, with a legend', () => {
    const svg = ablationSvg(
      [
        run(
          'ratio=token',
          0,
          [0, 0.5, 1],
          [
            [0, 0.1],
            [2, 0.3],
          ],
        ),
        run(
          'ratio=token',
          1,
          [0.2, 0.3, 0.4],
          [
            [0, 0.2],
            [2, 0.2],
          ],
        ),
        run('ratio=turn<geo>', 0, [1, 1, 0]),
        run('ratio=turn<geo>', 1, [0, 1, 0]),
      ],
      'tiny',
    );
    const series = [
      ...svg.matchAll(
        /<g class="series" data-config="([^"]+)">\n<polygon class="band" points="([^"]+)"[^>]*>\n<(path|circle) class="mean"/g,
      ),
    ];
    // reward panel: both configs; accuracy panel: only the config with evaluations
    expect(series.map((m) => m[1])).toEqual(['ratio=token', 'ratio=turn&lt;geo&gt;', 'ratio=token']);
    // a band has an upper and a lower point per step
    expect(series[0][2].trim().split(' ').length).toBe(6);
    expect(svg).toContain('<g class="panel" data-quantity="held-out accuracy (greedy)">');
    expect([...svg.matchAll(/<g class="legend"/g)].length).toBe(2);
    expect(svg).toContain('mean over 2 seeds');
  });
});
