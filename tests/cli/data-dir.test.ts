// The problem sets the repository does not ship (math8k, aime24, ...) through the real CLI (bin/rema.mjs in child
// processes): without a data folder, or with one that lacks the file, train and eval refuse before loading a model,
// naming the file looked for, where to download it and the --data-dir / REMA_DATA_DIR to point at it (the flag wins);
// with the file in the folder, the set is read from there.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR_ORIGIN } from '../../src/data/datasets.ts';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();
const { REMA_DATA_DIR: _ignored, ...baseEnv } = process.env;
/** runs `rema args` in a child process; independent runs go concurrently */
function rema(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn('node', [bin, ...args], { cwd: root, env: { ...baseEnv, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}
/** anything that gets as far as loading this model fails with "does not exist" */
const noModel = ['--set', 'modelSource=local', '--set', `model=${join(tmpdir(), 'rema-no-such-model')}`, '--quiet'];

const tmp = mkdtempSync(join(tmpdir(), 'rema-data-dir-'));
const empty = join(tmp, 'empty');
mkdirSync(empty);
const data = join(tmp, 'data');
mkdirSync(join(data, 'eval'), { recursive: true });
const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ question: `What is ${i}+1?`, answer: String(i + 1) })).join(
    '\n',
  ) + '\n';
writeFileSync(join(data, 'eval/aime24.jsonl'), rows(3));
writeFileSync(join(data, 'math_train_lv3to5_8k.min.jsonl'), rows(4));

describe('sets that are not shipped', () => {
  it('are refused before a model loads, naming the file looked for, the download and --data-dir (train, eval, sweep)', async () => {
    const out = join(tmp, 'refused-run');
    const [none, train, viaEnv, flagWins, sweep] = await Promise.all([
      rema(['eval', '--preset', 'tiny-default', '--benchmarks', 'aime24', ...noModel]),
      rema([
        'train',
        '--preset',
        'tiny-default',
        '--set',
        'trainSet=math8k',
        '--data-dir',
        empty,
        '--out',
        out,
        ...noModel,
      ]),
      rema(['eval', '--preset', 'tiny-default', '--benchmarks', 'olympiadbench', ...noModel], { REMA_DATA_DIR: empty }),
      rema(['eval', '--preset', 'tiny-default', '--benchmarks', 'aime24', '--data-dir', empty, ...noModel], {
        REMA_DATA_DIR: data,
      }),
      rema([
        'sweep',
        '--preset',
        'tiny-default',
        '--set',
        'evalSet=math8k',
        '--grid',
        '{"lr":[0.01]}',
        '--data-dir',
        empty,
        '--out',
        join(tmp, 'refused-sweep'),
        ...noModel,
      ]),
    ]);
    expect(none.status).toBe(1);
    expect(none.stderr).toBe(
      'rema: dataset "aime24" (AIME 2024, 30 problems; evaluation use only) is not shipped with the playground: no data folder is given ' +
        '(--data-dir DIR or REMA_DATA_DIR), so eval/aime24.jsonl was not looked for. ' +
        `Download eval/aime24.jsonl from ${DATA_DIR_ORIGIN} into a folder DIR (as DIR/eval/aime24.jsonl) and pass --data-dir DIR or set REMA_DATA_DIR=DIR.\n`,
    );
    expect(train.status).toBe(1);
    expect(train.stderr).toContain(`looked for ${join(empty, 'math_train_lv3to5_8k.min.jsonl')}, which does not exist`);
    expect(train.stderr).toContain('--data-dir DIR');
    expect(existsSync(join(out, 'config.json'))).toBe(false);
    expect(viaEnv.status).toBe(1);
    expect(viaEnv.stderr).toContain(`looked for ${join(empty, 'eval/olympiadbench.jsonl')}, which does not exist`);
    // --data-dir wins over REMA_DATA_DIR (which holds the file)
    expect(flagWins.stderr).toContain(`looked for ${join(empty, 'eval/aime24.jsonl')}, which does not exist`);
    expect(sweep.status).toBe(1);
    expect(sweep.stderr).toContain(`looked for ${join(empty, 'math_train_lv3to5_8k.min.jsonl')}, which does not exist`);
  });

  it('are read from the folder: REMA_DATA_DIR (eval) or --data-dir (train)', async () => {
    const run = join(tmp, 'run');
    const math8k = [
      '--set',
      'trainSet=math8k',
      '--set',
      'trainSize=0',
      '--set',
      'evalSet=math8k',
      '--set',
      'evalSize=0',
      '--steps',
      '1',
      '--backend',
      'cpu',
      '--quiet',
    ];
    const [evaluated, trained] = await Promise.all([
      rema(
        [
          'eval',
          '--preset',
          'tiny-default',
          ...fastFlags(model),
          '--backend',
          'cpu',
          '--quiet',
          '--benchmarks',
          'aime24',
        ],
        { REMA_DATA_DIR: data },
      ),
      rema(['train', '--preset', 'tiny-default', ...fastFlags(model), ...math8k, '--data-dir', data, '--out', run]),
    ]);
    expect(evaluated.stderr).toBe('');
    expect(evaluated.stdout).toMatch(/^aime24\s+n=\s+3\s+pass@1/m);
    expect(trained.stderr).toBe('');
    expect(trained.status).toBe(0);
    // the evaluations ran on the 4 problems of the folder's math8k
    const evals = readFileSync(join(run, 'eval.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { n: number });
    expect(evals.length).toBeGreaterThan(0);
    for (const e of evals) expect(e.n).toBe(4);
  });
});
