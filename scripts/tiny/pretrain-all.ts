// `npm run pretrain-tiny`: the supervised stages that make the embedded tiny models, one after the other,
// each a child process of scripts/tiny/pretrain.ts started from the previous stage's weights (--init):
//   1. 1200-step schedule from random weights, stopped at step 600             -> $TMPDIR/tiny-rema-stage1
//   2. 1500-step schedule from stage 1 (seed 2), stopped at step 1350          -> $TMPDIR/tiny-rema-stage2
//   3. 150 steps at lr 1e-3 with 55 % misread plans, from stage 2 (seed 3)     -> public/models/tiny-rema
//   4. 1200 steps at lr 2e-3 on the judge-focused mixture, from stage 3 (seed 4) -> public/models/tiny-rema-judge
// A stage that fails stops the run with its exit status. --dry-run prints the four commands without running them.
//
//   npx tsx scripts/tiny/pretrain-all.ts [--dry-run]

import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const script = resolve(import.meta.dirname, 'pretrain.ts');
/** V8 flags of every stage: relaxed SIMD on Node 20, and WebAssembly compiled by the optimising tier only (no Liftoff) */
const NODE_FLAGS = ['--no-liftoff', '--experimental-wasm-relaxed-simd', '--import', 'tsx'];
const stage1 = join(tmpdir(), 'tiny-rema-stage1');
const stage2 = join(tmpdir(), 'tiny-rema-stage2');
const models = resolve(import.meta.dirname, '../../public/models');

const STAGES: readonly (readonly string[])[] = [
  ['--steps', '1200', '--stop-after', '600', '--seed', '1', '--out', stage1],
  ['--init', stage1, '--seed', '2', '--steps', '1500', '--stop-after', '1350', '--out', stage2],
  ['--init', stage2, '--seed', '3', '--steps', '150', '--lr', '1e-3', '--misread', '0.55', '--eval-every', '1000'],
  [
    '--init',
    join(models, 'tiny-rema'),
    '--seed',
    '4',
    '--steps',
    '1200',
    '--lr',
    '2e-3',
    '--mix',
    'judge',
    '--eval-every',
    '400',
    '--out',
    join(models, 'tiny-rema-judge'),
  ],
];

const dryRun = process.argv.includes('--dry-run');
const unknown = process.argv.slice(2).filter((a) => a !== '--dry-run');
if (unknown.length > 0) {
  process.stderr.write(`pretrain-all: unknown argument(s) ${unknown.join(' ')}; the only option is --dry-run\n`);
  process.exit(2);
}
for (const [i, args] of STAGES.entries()) {
  const command = [...NODE_FLAGS, script, ...args];
  process.stdout.write(`stage ${i + 1}/${STAGES.length}: node ${command.join(' ')}\n`);
  if (dryRun) continue;
  const r = spawnSync(process.execPath, command, { stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(
      `pretrain-all: stage ${i + 1} failed (${r.status === null ? `signal ${r.signal}` : `exit status ${r.status}`})\n`,
    );
    process.exit(r.status ?? 1);
  }
}
