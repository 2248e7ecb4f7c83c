// Runs the SFT ablation (arms.ts says what each arm is): makes the base once (scripts/tiny/pretrain.ts --mix direct,
// a child process), then per arm and seed an SFT run and an RL run from its model, and copies each run's small
// files (config, SFT settings, metrics, evals) to runs/sft-ablation/logs/<budget>/<arm>/seed-<s>/. A finished step
// is skipped and a killed run resumes from its checkpoint, so the script can be re-run. report.ts --results
// runs/sft-ablation/logs summarises them into results/sft-ablation/summary.json and writes docs/sft-ablation.md.
//   node --experimental-wasm-relaxed-simd --import tsx scripts/sft-ablation/run.ts [--budgets short,long] [--arms meta,cot] [--seeds 0,1,2,3,4]
// (two processes with one arm each run the arms side by side.)
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sftFromFlags, runSft } from '../../src/cli/sft.ts';
import { runTrain } from '../../src/cli/train.ts';
import { runtimeChoices } from '../../src/cli/runtime-choices.ts';
import { validateConfig } from '../../src/rl/config.ts';
import { getPreset } from '../../src/rl/presets.ts';
import {
  ARMS,
  BASE_ARGS,
  BASE_DIR,
  BUDGETS,
  REPO,
  RL_MODE,
  RL_SET,
  SFT_PRESET,
  SFT_SET,
  logDir,
  rlDir,
  sftDir,
  type Arm,
  type Budget,
} from './arms.ts';

const { values } = parseArgs({
  options: {
    budgets: { type: 'string', default: BUDGETS.join(',') },
    arms: { type: 'string', default: ARMS.join(',') },
    seeds: { type: 'string', default: '0,1,2,3,4' },
  },
});
process.chdir(REPO);
const runtime = runtimeChoices({ threads: '1' });

const lines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '').length
    : 0;
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json'];

/** The base model folder: pretrain.ts writes weights and config; the tokenizer is the embedded model's. */
function makeBase(): void {
  const done = existsSync(join(BASE_DIR, 'model.safetensors')) && existsSync(join(BASE_DIR, 'training-log.json'));
  if (!done) {
    console.log(`base: scripts/tiny/pretrain.ts ${BASE_ARGS.join(' ')} --out ${BASE_DIR}`);
    const r = spawnSync(
      process.execPath,
      [
        '--no-liftoff',
        '--experimental-wasm-relaxed-simd',
        '--import',
        'tsx',
        'scripts/tiny/pretrain.ts',
        ...BASE_ARGS,
        '--out',
        BASE_DIR,
      ],
      { stdio: 'inherit' },
    );
    if (r.status !== 0) throw new Error(`base: scripts/tiny/pretrain.ts failed (${r.status ?? r.signal})`);
  }
  for (const f of TOKENIZER_FILES)
    if (existsSync(join('public/models/tiny-rema', f)))
      copyFileSync(join('public/models/tiny-rema', f), join(BASE_DIR, f));
  mkdirSync('results/sft-ablation/base', { recursive: true });
  copyFileSync(join(BASE_DIR, 'training-log.json'), 'results/sft-ablation/base/training-log.json');
}

async function runArm(budget: Budget, arm: Arm, seed: number): Promise<void> {
  const t0 = Date.now();
  const sftOut = sftDir(budget, arm, seed);
  const model = join(sftOut, 'model');
  if (!existsSync(join(model, 'model.safetensors'))) {
    const run = sftFromFlags({
      preset: SFT_PRESET[arm],
      seed: String(seed),
      set: [...SFT_SET[budget], 'modelSource="local"', `model=${JSON.stringify(BASE_DIR)}`],
    });
    const s = await runSft({ ...run, out: sftOut, backend: 'wasm', runtime, progress: 'none' });
    console.log(
      `${budget} ${arm} seed ${seed}: SFT ${s.steps} steps, loss ${s.metrics[0]?.loss.toFixed(3)} -> ${s.metrics.at(-1)?.loss.toFixed(3)}`,
    );
  }
  const config = validateConfig(
    { ...RL_SET, ...RL_MODE[arm], seed, modelSource: 'local', model, name: `sft-ablation-${arm}` },
    `arm ${arm}`,
    getPreset('tiny-default'),
  );
  const rlOut = rlDir(budget, arm, seed);
  if (lines(join(rlOut, 'metrics.jsonl')) < config.steps) {
    const s = await runTrain({ config, out: rlOut, backend: 'wasm', runtime, saveEvery: 5, progress: 'none' });
    console.log(
      `${budget} ${arm} seed ${seed}: RL ${s.steps} steps, eval ${s.evals[0]?.accuracy.toFixed(3)} -> ${s.evals.at(-1)?.accuracy.toFixed(3)}`,
    );
  }
  const dest = logDir(budget, arm, seed);
  mkdirSync(join(dest, 'sft'), { recursive: true });
  for (const f of ['config.json', 'sft.json', 'metrics.jsonl']) cpSync(join(sftOut, f), join(dest, 'sft', f));
  for (const f of ['config.json', 'metrics.jsonl', 'eval.jsonl']) cpSync(join(rlOut, f), join(dest, f));
  console.log(`${budget} ${arm} seed ${seed}: done in ${((Date.now() - t0) / 60000).toFixed(1)} min -> ${dest}`);
}

{
  makeBase();
  const arms = values.arms.split(',') as Arm[];
  for (const a of arms) if (!ARMS.includes(a)) throw new Error(`--arms: unknown arm "${a}"; arms: ${ARMS.join(', ')}`);
  const budgets = values.budgets.split(',') as Budget[];
  for (const b of budgets)
    if (!BUDGETS.includes(b)) throw new Error(`--budgets: unknown budget "${b}"; budgets: ${BUDGETS.join(', ')}`);
  for (const budget of budgets)
    for (const seed of values.seeds.split(',').map(Number)) for (const arm of arms) await runArm(budget, arm, seed);
}
