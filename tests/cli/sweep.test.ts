// Sweep grids: every combination in a stable order, bundles (object values) set several fields together,
// labels and CSV cells are plain text.
import { describe, expect, it } from 'vitest';
import { gridPoints, parseGrid, pointLabel, pointOverrides, toCsv } from '../../src/cli/sweep.ts';

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
    expect(toCsv(['a', 'b'], [['x,y', 0.1234567891], [null, 'q"']])).toBe('a,b\n"x,y",0.123457\n,"q"""\n');
  });
});
