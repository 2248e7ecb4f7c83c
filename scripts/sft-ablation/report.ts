// Turns the ablation's runs into docs/sft-ablation.md: per arm the held-out greedy accuracy after SFT (the RL run's
// step-0 evaluation), after RL (its last evaluation) and the gain, each as mean / min / max over seeds, the per-seed
// rows, and the curves (docs/figures/sft-ablation-*-rl.svg: RL reward and held-out accuracy,
// src/rl/ablation-curves.ts; docs/figures/sft-ablation-*-sft-loss.svg: the SFT loss, src/rl/band-chart.ts).
// With --results DIR (the per-run files run.ts copies, runs/sft-ablation/logs) it first writes the committed summary
// results/sft-ablation/summary.json (each seed's settings, its SFT loss at most 256 points, reward per RL step and
// evaluations); without, it renders from that summary, so a fresh clone regenerates the page. The text after the
// "<!-- findings -->" line of an existing report is kept.
//   npx tsx scripts/sft-ablation/report.ts [--results runs/sft-ablation/logs]
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ablationSvg, band, spread, type RunCurves } from '../../src/rl/ablation-curves.ts';
import { bandChartSvg } from '../../src/rl/band-chart.ts';
import { ARMS, ARM_LABEL, BASE_ARGS, BUDGETS, REPO, RESULTS, RL_SET, SFT_SET, type Arm, type Budget } from './arms.ts';

const readJsonl = <T>(path: string): T[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as T)
    : [];

type Point = { step: number; value: number };
interface SeedRun {
  seed: number;
  /** the RL run's config.json and the SFT run's sft.json, as written */
  config: unknown;
  sft: unknown;
  /** SFT loss per optimiser step (at most SFT_POINTS points, evenly spaced, the last step included) */
  sftLoss: Point[];
  /** number of SFT optimiser steps */
  sftSteps: number;
  reward: Point[];
  evals: Point[];
}
type Summary = Partial<Record<Budget, Partial<Record<Arm, SeedRun[]>>>>;

const SFT_POINTS = 256;
const summaryPath = join(REPO, RESULTS, 'summary.json');

/** Every k-th point so at most `n` remain, the last one always kept. */
function thin(points: Point[], n: number): Point[] {
  const k = Math.ceil(points.length / n);
  return points.filter((_, i) => i % k === 0 || i === points.length - 1);
}

/** One arm's seeds from the run files (dir/<budget>/<arm>/seed-<s>/: config.json, metrics.jsonl, eval.jsonl, sft/). */
function runsFromLogs(dir: string, budget: Budget, arm: Arm): SeedRun[] {
  const armDir = join(dir, budget, arm);
  if (!existsSync(armDir)) return [];
  return readdirSync(armDir)
    .filter((n) => /^seed-\d+$/.test(n))
    .map((n) => {
      const seedDir = join(armDir, n);
      const json = (f: string) =>
        existsSync(join(seedDir, f)) ? JSON.parse(readFileSync(join(seedDir, f), 'utf8')) : null;
      const loss = readJsonl<{ step: number; loss: number }>(join(seedDir, 'sft', 'metrics.jsonl')).map((m) => ({
        step: m.step,
        value: m.loss,
      }));
      return {
        seed: Number(n.slice(5)),
        config: json('config.json'),
        sft: json('sft/sft.json'),
        sftLoss: thin(loss, SFT_POINTS),
        sftSteps: loss.length,
        reward: readJsonl<{ step: number; reward_mean: number }>(join(seedDir, 'metrics.jsonl')).map((m) => ({
          step: m.step,
          value: m.reward_mean,
        })),
        evals: readJsonl<{ step: number; accuracy: number }>(join(seedDir, 'eval.jsonl')).map((e) => ({
          step: e.step,
          value: e.accuracy,
        })),
      };
    })
    .filter((r) => r.evals.length > 0)
    .toSorted((a, b) => a.seed - b.seed);
}

const { values: args } = parseArgs({ options: { results: { type: 'string' } } });
if (args.results) {
  const dir = resolve(args.results);
  if (!existsSync(dir)) throw new Error(`--results ${dir}: no such folder (scripts/sft-ablation/run.ts writes it)`);
  const summary: Summary = Object.fromEntries(
    BUDGETS.map((b) => [b, Object.fromEntries(ARMS.map((a) => [a, runsFromLogs(dir, b, a)]))]),
  );
  writeFileSync(summaryPath, `${JSON.stringify(summary)}\n`);
  console.log(`wrote ${summaryPath}`);
}
if (!existsSync(summaryPath))
  throw new Error(`${summaryPath} is missing: run scripts/sft-ablation/run.ts, then this script with --results`);
const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as Summary;
const runsOf = (budget: Budget, arm: Arm): SeedRun[] => summary[budget]?.[arm] ?? [];

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '-');
const pts = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}` : '-');
const trio = (xs: number[], f: (x: number) => string) => {
  const s = spread(xs);
  return `${f(s.mean)} (${f(s.min)} .. ${f(s.max)})`;
};

{
  const docPath = join(REPO, 'docs/sft-ablation.md');
  const kept = existsSync(docPath) ? readFileSync(docPath, 'utf8').split('<!-- findings -->')[1] : undefined;
  const rows: string[] = [];
  const seedRows: string[] = [];
  const figures: string[] = [];
  mkdirSync(join(REPO, 'docs/figures'), { recursive: true });
  for (const budget of BUDGETS) {
    const runs = Object.fromEntries(ARMS.map((a) => [a, runsOf(budget, a)])) as Record<Arm, SeedRun[]>;
    for (const arm of ARMS) {
      const rs = runs[arm];
      if (rs.length === 0) {
        rows.push(`| ${budget} | ${ARM_LABEL[arm]} | - | - | - | - | - |`);
        continue;
      }
      const after = rs.map((r) => r.evals.at(-1)!.value);
      const before = rs.map((r) => r.evals[0].value);
      const gain = after.map((a, i) => a - before[i]);
      const steps = rs.map((r) => r.evals.at(-1)!.step);
      rows.push(
        `| ${budget} | ${ARM_LABEL[arm]} | ${rs.map((r) => r.seed).join(', ')} | ${Math.min(...steps)} | ${trio(before, pct)} | ${trio(after, pct)} | ${trio(gain, pts)} |`,
      );
      for (const r of rs)
        seedRows.push(
          `| ${budget} | ${arm} | ${r.seed} | ${r.sftSteps} | ${r.sftLoss[0]?.value.toFixed(3) ?? '-'} -> ${r.sftLoss.at(-1)?.value.toFixed(3) ?? '-'} | ${r.evals.map((e) => `${e.step}: ${pct(e.value)}`).join(', ')} |`,
        );
    }
    if (ARMS.every((a) => runs[a].length === 0)) continue;
    const curves: RunCurves[] = ARMS.flatMap((a) =>
      runs[a].map((r) => ({ config: ARM_LABEL[a], seed: r.seed, reward: r.reward, eval: r.evals })),
    );
    writeFileSync(
      join(REPO, `docs/figures/sft-ablation-${budget}-rl.svg`),
      ablationSvg(curves, `${budget} SFT, then RL`),
    );
    const lossCurves = ARMS.filter((a) => runs[a].length > 0).map((a) => ({
      name: `${a} SFT`,
      points: band(runs[a].map((r) => r.sftLoss)),
    }));
    writeFileSync(
      join(REPO, `docs/figures/sft-ablation-${budget}-sft-loss.svg`),
      bandChartSvg({
        title: `${budget} SFT: mean over seeds, band = min..max`,
        panels: [
          { title: 'loss (mean NLL per trained token)', xLabel: 'SFT step', yLabel: 'loss', series: lossCurves },
        ],
      }),
    );
    figures.push(
      `![${budget} SFT: RL reward and held-out accuracy per arm](figures/sft-ablation-${budget}-rl.svg)`,
      '',
      `![${budget} SFT: loss per arm](figures/sft-ablation-${budget}-sft-loss.svg)`,
      '',
    );
  }

  const baseLog = join(REPO, RESULTS, 'base/training-log.json');
  const baseEval = existsSync(baseLog)
    ? (
        JSON.parse(readFileSync(baseLog, 'utf8')) as {
          finalEval: { accuracy: { all: { correct: number; total: number } } };
        }
      ).finalEval.accuracy.all
    : null;
  const doc = `# Ablation: meta-thinking SFT then RL vs CoT SFT then RL (embedded model)

The paper's Sec. 4.2.1 (Fig. 3) motivates ReMA by starting RL from SFT on meta-thinking dialogues versus from SFT on
chain-of-thought answers. This is that comparison on the embedded tiny model and task, generated by
\`scripts/sft-ablation/run.ts\` (the runs) and \`scripts/sft-ablation/report.ts\` (this page); the runs' configs,
SFT settings, curves and evaluations are summarised in \`results/sft-ablation/summary.json\` (no weights; the
per-step logs stay in the run folders, \`runs/sft-ablation/logs/\`).

## Setup

- **Base.** The shipped model has already been trained on both formats, so both arms start from an earlier base:
  \`scripts/tiny/pretrain.ts ${BASE_ARGS.join(' ')}\`, the tiny architecture trained from random weights on the task's
  questions with only their boxed answers (no system prompt, no plan, no dialogue, no chain of thought). It knows
  the task's language and answer format, neither of the two reasoning formats${baseEval ? ` (held-out greedy accuracy in the multi-turn protocol: ${baseEval.correct}/${baseEval.total}; \`results/sft-ablation/base/training-log.json\`)` : ''}.
- **SFT.** \`rema sft --preset tiny-sft-meta\` (ReMA multi-turn dialogues with gold plans, both agents' sides: two chats
  per problem) vs \`rema sft --preset tiny-sft-cot\` (one chain-of-thought answer per problem, the same problems), with
  the seed and, at two budgets, ${BUDGETS.map((b) => `${b}: \`${SFT_SET[b].join(' ')}\``).join('; ')}; full fine-tuning because the
  base knows neither format. The meta arm has two chats per problem, so twice the optimiser steps of the CoT arm.
- **RL.** From each SFT model, \`rema train --preset tiny-default\` (LoRA rank 8, lr 1e-3, 8 problems x 8 samples a step)
  with ${Object.entries(RL_SET)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}: multi-turn ReMA after meta-thinking SFT; after
  CoT SFT the single-agent CoT baseline (mode \`vrp-rl\`, maxTurns 1), every other setting the same.
- **Accuracy.** Greedy, on the same held-out problems, each arm in its own protocol (multi-turn ReMA / one CoT
  answer); correct = the final \\boxed{} equals the answer. "After SFT" is the RL run's step-0 evaluation.

## Results

Mean over seeds, (min .. max) in brackets; gain in percentage points.

| SFT budget | arm | seeds | RL steps | accuracy after SFT | accuracy after RL | gain |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

Per seed: SFT steps, SFT loss at the first -> last step, held-out accuracy at each evaluation (step: accuracy).

| SFT budget | arm | seed | SFT steps | SFT loss | held-out accuracy during RL |
| --- | --- | --- | --- | --- | --- |
${seedRows.join('\n')}

${figures.join('\n')}
<!-- findings -->${kept ?? '\n'}`;
  writeFileSync(docPath, doc);
  console.log(`wrote ${docPath}`);
}
