// The judge model's RL runs (public/models/tiny-rema-judge, preset tiny-judge), one seed after the other, and the
// shipped tiny-rema evaluated on the same held-out judge items for comparison; then a summary of every run: greedy
// held-out accuracy per evaluation, the share of first plans that check the equations (greedy at each evaluation,
// sampled at T = 1 in training), episodes the context cut, wall time. Writes results/tiny-judge/ (summary.json,
// summary.md and each run's config.json); the per-step logs stay in the run folders (--runs), from which
// --summary-only rewrites the summary.
//
//   npx tsx scripts/tiny/judge-rl.ts [--seeds 0,1,2] [--runs DIR] [--results results/tiny-judge] [--summary-only]

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { tinyJudgeProblems } from '../../src/data/tiny-task/dataset.ts';
import { JUDGE_CHECK_PLAN, JUDGE_SHORTCUT_PLAN } from '../../src/data/tiny-task/judge.ts';
import { FINISH } from '../../src/data/tiny-task/traces.ts';
import { TINY_DATA_SEED } from '../../src/rl/problems.ts';
import { getPreset, TINY_JUDGE_MODEL_NAME } from '../../src/rl/presets.ts';
import { planKind } from './judge-eval.ts';
import { greedyEpisodes, greedyModelFromFolder } from './rollout.ts';

const root = resolve(import.meta.dirname, '../..');
const { values: args } = parseArgs({
  options: {
    seeds: { type: 'string', default: '0,1,2' },
    runs: { type: 'string', default: join(tmpdir(), 'tiny-judge-rl') },
    results: { type: 'string', default: join(root, 'results/tiny-judge') },
    'summary-only': { type: 'boolean', default: false },
  },
});
const seeds = args.seeds!.split(',').map(Number);
const runsDir = resolve(args.runs!);

interface Turn {
  role: string;
  text: string;
}
interface Rollout {
  step: number;
  turns: Turn[];
  correct: boolean;
  reward: number;
  finish_reason: string;
}

const jsonl = <T>(file: string): T[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

/** Run one `rema train` (the repository's CLI), recording its wall time next to its files. */
function train(out: string, extra: string[]): void {
  if (existsSync(join(out, 'wall.json'))) return;
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [join(root, 'bin/rema.mjs'), 'train', ...extra, '--out', out, '--quiet'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`rema train ${extra.join(' ')}: exit status ${r.status}`);
  writeFileSync(join(out, 'wall.json'), JSON.stringify({ wall_s: (Date.now() - t0) / 1000 }));
}

/** Per step: how many first plans check, take the shortcut, or are something else; episodes and their finishes. */
function planCounts(rollouts: Rollout[]) {
  const by = new Map<
    number,
    { check: number; shortcut: number; other: number; n: number; correct: number; cut: number }
  >();
  for (const r of rollouts) {
    const s = by.get(r.step) ?? { check: 0, shortcut: 0, other: 0, n: 0, correct: 0, cut: 0 };
    s[planKind(r.turns.find((t) => t.role === 'meta')?.text ?? '')]++;
    s.n++;
    if (r.correct) s.correct++;
    if (r.finish_reason === 'completion_token_exceeded') s.cut++;
    by.set(r.step, s);
  }
  return Object.fromEntries(by);
}

function summarize(dir: string) {
  const evals = jsonl<{ step: number; accuracy: number; n: number; context_limited?: number }>(join(dir, 'eval.jsonl'));
  const evalPlans = planCounts(jsonl<Rollout>(join(dir, 'eval_rollouts.jsonl')));
  const metrics = existsSync(join(dir, 'metrics.jsonl'))
    ? jsonl<{ step: number; reward_mean: number; context_limited?: number }>(join(dir, 'metrics.jsonl'))
    : [];
  const trainPlans = existsSync(join(dir, 'rollouts.jsonl'))
    ? planCounts(jsonl<Rollout>(join(dir, 'rollouts.jsonl')))
    : {};
  const wall = JSON.parse(readFileSync(join(dir, 'wall.json'), 'utf8')) as { wall_s: number };
  return {
    evals: evals.map((e) => ({
      step: e.step,
      accuracy: e.accuracy,
      n: e.n,
      correct: Math.round(e.accuracy * e.n),
      context_limited: e.context_limited ?? 0,
      plans: evalPlans[e.step],
    })),
    train: metrics.map((m) => ({
      step: m.step,
      reward_mean: m.reward_mean,
      context_limited: m.context_limited ?? 0,
      plans: trainPlans[m.step],
    })),
    wall_s: wall.wall_s,
  };
}

/**
 * The judge model before RL on the preset's held-out items, greedy (scripts/tiny/rollout.ts): with its own plan,
 * and with the plan forced to check or to the shortcut; the forced check is the ceiling RL can reach by moving plans.
 */
async function beforeRl(): Promise<{ n: number; own: number; check: number; shortcut: number }> {
  const { config, tok, policy } = await greedyModelFromFolder(join(root, 'public/models', TINY_JUDGE_MODEL_NAME));
  const problems = tinyJudgeProblems({
    split: 'heldout',
    count: getPreset('tiny-judge').evalSize,
    seed: TINY_DATA_SEED,
  });
  const correct = async (plan?: string) =>
    (await greedyEpisodes(policy, tok, problems, 'full', config.maxPositionEmbeddings, undefined, plan)).filter(
      (e) => e.correct,
    ).length;
  return {
    n: problems.length,
    own: await correct(),
    check: await correct(`${JUDGE_CHECK_PLAN} ${FINISH}`),
    shortcut: await correct(`${JUDGE_SHORTCUT_PLAN} ${FINISH}`),
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  mkdirSync(runsDir, { recursive: true });
  const shippedDir = join(runsDir, 'shipped-tiny-rema');
  if (!args['summary-only']) {
    // the shipped model (3 rounds allowed, as its card's judge number; its meta-thinking agent sees only the instruction)
    train(shippedDir, ['--preset', 'tiny-judge', '--set', 'model="tiny-rema"', '--set', 'maxTurns=3', '--steps', '0']);
    for (const seed of seeds) train(join(runsDir, `seed-${seed}`), ['--preset', 'tiny-judge', '--seed', String(seed)]);
  }
  const runs = seeds.map((seed) => ({ seed, ...summarize(join(runsDir, `seed-${seed}`)) }));
  const shipped = summarize(shippedDir);
  const results = resolve(args.results!);
  mkdirSync(results, { recursive: true });
  for (const { seed } of runs) {
    const to = join(results, `seed-${seed}`);
    mkdirSync(to, { recursive: true });
    copyFileSync(join(runsDir, `seed-${seed}`, 'config.json'), join(to, 'config.json'));
  }
  const steps = runs[0].evals.map((e) => e.step);
  const lines = [
    `| seed | ${steps.map((s) => `eval @ ${s}`).join(' | ')} | gain (last − step 0) | greedy first plans that check, step 0 → ${steps.at(-1)} | sampled plans that check, steps 1–10 → last 10 | rollout reward, steps 1–10 → last 10 | episodes cut by the context: eval step 0 → ${steps.at(-1)}, training (all steps) | wall time |`,
    `| --- | ${steps.map(() => '---').join(' | ')} | --- | --- | --- | --- | --- | --- |`,
  ];
  const reward = (r: (typeof runs)[number], from: number, to: number) =>
    mean(r.train.filter((t) => t.step >= from && t.step <= to).map((t) => t.reward_mean)).toFixed(3);
  const trainCheck = (r: (typeof runs)[number], from: number, to: number) => {
    const rows = r.train.filter((t) => t.step >= from && t.step <= to && t.plans);
    const check = rows.reduce((s, t) => s + t.plans.check, 0);
    const n = rows.reduce((s, t) => s + t.plans.n, 0);
    return n > 0 ? pct(check / n) : '-';
  };
  for (const r of runs) {
    const first = r.evals[0];
    const last = r.evals.at(-1)!;
    const lastStep = r.train.at(-1)?.step ?? 0;
    lines.push(
      `| ${r.seed} | ${r.evals.map((e) => pct(e.accuracy)).join(' | ')} | +${((last.accuracy - first.accuracy) * 100).toFixed(1)} | ` +
        `${first.plans.check}/${first.n} → ${last.plans.check}/${last.n} | ${trainCheck(r, 1, 10)} → ${trainCheck(r, lastStep - 9, lastStep)} | ` +
        `${reward(r, 1, 10)} → ${reward(r, lastStep - 9, lastStep)} | ` +
        `${first.context_limited} → ${last.context_limited}, ${r.train.reduce((a, t) => a + t.context_limited, 0)} of ${r.train.reduce((a, t) => a + (t.plans?.n ?? 0), 0)} | ${(r.wall_s / 60).toFixed(1)} min |`,
    );
  }
  const gains = runs.map((r) => (r.evals.at(-1)!.accuracy - r.evals[0].accuracy) * 100);
  const sd = Math.sqrt(mean(gains.map((g) => (g - mean(gains)) ** 2)) * (gains.length / Math.max(1, gains.length - 1)));
  const s0 = shipped.evals[0];
  const before = await beforeRl();
  lines.push(
    '',
    `Gain over ${runs.length} seeds: mean +${mean(gains).toFixed(1)} points, spread ${Math.min(...gains).toFixed(1)} to ${Math.max(...gains).toFixed(1)} (sd ${sd.toFixed(1)}); ` +
      `start ${pct(mean(runs.map((r) => r.evals[0].accuracy)))} → end ${pct(mean(runs.map((r) => r.evals.at(-1)!.accuracy)))} mean.`,
    `Shipped tiny-rema on the same ${s0.n} held-out items (tiny prompts, its meta-thinking agent shown only the instruction; 3 rounds allowed): ${pct(s0.accuracy)} ` +
      `(${s0.correct}/${s0.n}), ${s0.context_limited} episodes cut by the context.`,
    `tiny-rema-judge before RL on the same items, greedy (scripts/tiny/rollout.ts): own plan ${pct(before.own / before.n)} ` +
      `(${before.own}/${before.n}); plan forced to check ${pct(before.check / before.n)} (${before.check}/${before.n}); ` +
      `forced to trust A ${pct(before.shortcut / before.n)} (${before.shortcut}/${before.n}).`,
  );
  const md = `${lines.join('\n')}\n`;
  writeFileSync(join(results, 'summary.md'), md);
  writeFileSync(join(results, 'summary.json'), `${JSON.stringify({ runs, shipped, before }, null, 1)}\n`);
  process.stdout.write(md);
}

await main();
