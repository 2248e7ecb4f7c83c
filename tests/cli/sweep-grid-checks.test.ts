// Sweep grids that would make two runs share a folder, or a folder the file system refuses: a `seed` grid field,
// a value listed twice, `--seeds 0,0`, a bundle label longer than a file name may be, two labels that clean to
// one folder name. Each is refused before any run or given its own folder.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderStems, parseGrid, pointLabel, runSweep } from '../../src/cli/sweep.ts';
import { getPreset } from '../../src/rl/presets.ts';

describe('sweep grid checks', () => {
  it('refuses a seed field (plain or in a bundle) and a value listed twice, naming the field', () => {
    expect(() => parseGrid({ seed: [0, 1] }, 'g')).toThrow(/g: grid field "seed": seeds are swept with --seeds/);
    expect(() => parseGrid({ v: [{ lr: 1e-3 }, { lr: 1e-2, seed: 3 }] }, 'g')).toThrow(
      /g: grid field "v" sets "seed": seeds are swept with --seeds/,
    );
    expect(() => parseGrid({ lr: [1e-3, 1e-2, 1e-3] }, 'g')).toThrow(
      'g: grid field "lr" lists 0.001 twice (values 1 and 3)',
    );
    expect(() =>
      parseGrid(
        {
          v: [
            { lr: 1e-3, ratio: 'token' },
            { lr: 1e-3, ratio: 'token' },
          ],
        },
        'g',
      ),
    ).toThrow(/grid field "v" lists lr:0.001\+ratio:token twice/);
  });

  it('refuses a seed listed twice before running anything', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-sweep-')), 'never');
    await expect(
      runSweep({ base: getPreset('tiny-default'), grid: { lr: [1e-3] }, seeds: [0, 0], out, backend: 'cpu' }),
    ).rejects.toThrow('--seeds lists seed 0 twice');
  });

  it('gives a long bundle label a folder the file system takes, and colliding names their own folders', () => {
    const long = { variant: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field${i}`, `value-${i}`])) };
    const labels = [pointLabel(long), 'ratio=a b', 'ratio=a/b', 'ratio=token'];
    const stems = folderStems(labels);
    expect(new Set(stems).size).toBe(labels.length);
    expect(stems[3]).toBe('ratio=token');
    const dir = mkdtempSync(join(tmpdir(), 'rema-sweep-names-'));
    for (const s of stems) mkdirSync(join(dir, `${s}__seed0`));
    expect(Buffer.byteLength(stems[0])).toBeLessThan(100);
  });
});
