// `npm run pretrain-tiny` (scripts/tiny/pretrain-all.ts, in a child process with --dry-run): the three stages of the
// embedded model in order, each starting from the weights the previous one wrote, with the recorded arguments
// (public/models/tiny-rema/README.md), then the judge stage from the shipped weights into tiny-rema-judge
// (public/models/tiny-rema-judge/README.md); an unknown argument is refused instead of being ignored.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/tiny/pretrain-all.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
  });

/** the value after `name` in a stage's arguments */
const flag = (args: string[], name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

describe('npm run pretrain-tiny', () => {
  it("is the script file, and runs the four stages in order, each from the previous one's weights", () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['pretrain-tiny']).toBe('tsx scripts/tiny/pretrain-all.ts');
    const r = run('--dry-run');
    expect(r.status).toBe(0);
    const stages = r.stdout
      .trim()
      .split('\n')
      .map((line) => {
        const m = /^stage (\d)\/4: node --no-liftoff --experimental-wasm-relaxed-simd --import tsx (\S+) (.*)$/.exec(
          line,
        );
        expect(m, line).not.toBeNull();
        expect(m![2]).toBe(join(root, 'scripts/tiny/pretrain.ts'));
        return m![3].split(' ');
      });
    expect(stages).toHaveLength(4);
    expect(flag(stages[0], '--init')).toBeUndefined();
    expect(flag(stages[1], '--init')).toBe(flag(stages[0], '--out'));
    expect(flag(stages[2], '--init')).toBe(flag(stages[1], '--out'));
    // the last stage writes the shipped model (pretrain.ts's default --out)
    expect(flag(stages[2], '--out')).toBeUndefined();
    // the judge stage starts from the shipped model and writes its sibling
    expect(flag(stages[3], '--init')).toBe(join(root, 'public/models/tiny-rema'));
    expect(flag(stages[3], '--out')).toBe(join(root, 'public/models/tiny-rema-judge'));
    const folders = new Set(['--init', '--out']);
    const rest = (args: string[]) => args.filter((a, i) => !folders.has(a) && !folders.has(args[i - 1])).join(' ');
    expect(stages.map(rest)).toEqual([
      '--steps 1200 --stop-after 600 --seed 1',
      '--seed 2 --steps 1500 --stop-after 1350',
      '--seed 3 --steps 150 --lr 1e-3 --misread 0.55 --eval-every 1000',
      '--seed 4 --steps 1200 --lr 2e-3 --mix judge --eval-every 400',
    ]);
  });

  it('refuses an unknown argument', () => {
    const r = run('--steps', '5');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('pretrain-all: unknown argument(s) --steps 5; the only option is --dry-run\n');
  });
});
