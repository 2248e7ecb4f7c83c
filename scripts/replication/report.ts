// Turns the Fig. 6 runs' committed summary (results/fig6/summary.json, scripts/replication/summary.ts) into the
// figures and the tables of docs/replication.md: per variant, the mean over seeds with a min-max band of the rollout reward and of
// the held-out greedy accuracy, the area under the reward curve (the paper's sample-efficiency measure), final and
// best accuracy, clip fractions (to show the ratio acts), and the Echo Trap alarm per seed. Only finished steps
// count; a variant with fewer seeds or steps says so in the table.
// With --results DIR (the run folders fig6.ts writes, runs/fig6) it first rewrites the summary from them; --docs DIR
// writes the page and figures elsewhere than docs/.
//   npx tsx scripts/replication/report.ts [--results runs/fig6] [--docs docs]   -> docs/figures/fig6-*.svg, docs/replication-results.md
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { detectEchoTrap } from '../../src/app/analysis/echo-trap.ts';
import { band, mean, sd as std } from '../lib/stats.ts';
import { bandChartSvg, type BandSeries } from '../../src/rl/band-chart.ts';
import { readFig6Summary, summarizeFig6, writeFig6Summary } from './summary.ts';
import { VARIANTS } from './variants.ts';

const { values: args } = parseArgs({
  options: {
    results: { type: 'string' },
    docs: { type: 'string', default: resolve(import.meta.dirname, '../../docs') },
  },
});
const DOCS = resolve(args.docs);
if (args.results) {
  const logs = resolve(args.results);
  if (!existsSync(logs)) throw new Error(`--results ${logs}: no such folder (scripts/replication/fig6.ts writes it)`);
  writeFig6Summary(summarizeFig6(logs, Object.keys(VARIANTS)));
}
const summary = readFig6Summary();
const runsOf = (variant: string) => summary.filter((r) => r.variant === variant);

/** Moving average over `k` steps, so that per-step noise (64 rollouts) does not hide the trend. */
const smooth = (ys: { x: number; y: number }[], k = 5) =>
  ys.map((p, i) => ({ x: p.x, y: mean(ys.slice(Math.max(0, i - k + 1), i + 1).map((q) => q.y)) }));

const fmt = (x: number, d = 3) => x.toFixed(d);
const spread = (xs: number[], d = 3) =>
  `${fmt(mean(xs), d)} ± ${fmt(std(xs), d)} (${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})`;

const fig6 = ['turn-shared', 'token-shared', 'turn-separate'];
const rows: string[] = [];
const rewardCurves: BandSeries[] = [];
const evalCurves: BandSeries[] = [];
for (const variant of fig6) {
  const runs = runsOf(variant);
  if (runs.length === 0) continue;
  const steps = Math.min(...runs.map((r) => r.metrics.length));
  const target = VARIANTS[variant]().steps;
  rewardCurves.push(
    band(
      variant,
      runs.map((r) => smooth(r.metrics.map((m) => ({ x: m.step, y: m.reward_mean })))),
    ),
  );
  evalCurves.push(
    band(
      variant,
      runs.map((r) => r.evals.map((e) => ({ x: e.step, y: e.accuracy }))),
    ),
  );
  const auc = runs.map((r) => mean(r.metrics.slice(0, steps).map((m) => m.reward_mean)));
  const final = runs.map((r) => r.evals.at(-1)!.accuracy);
  const gain = runs.map((r) => r.evals.at(-1)!.accuracy - r.evals[0].accuracy);
  const best = runs.map((r) => Math.max(...r.evals.map((e) => e.accuracy)));
  const clip = runs.map((r) => mean(r.metrics.slice(0, steps).map((m) => m.clip_frac_low + m.clip_frac_high)));
  rows.push(
    `| ${variant} | ${runs.map((r) => r.seed).join(', ')} | ${steps}${steps < target ? ` of ${target}` : ''} | ${spread(auc)} | ${spread(final)} | ${spread(gain)} | ${spread(best)} | ${spread(clip, 4)} |`,
  );
}

const echo = runsOf('echo-trap');
const echoRows = echo.map((r) => {
  const rep = detectEchoTrap(r.metrics);
  const e = r.evals;
  return `| ${r.seed} | ${r.metrics.length} | ${fmt(e[0]?.accuracy ?? NaN)} → ${fmt(e.at(-1)?.accuracy ?? NaN)} | ${fmt(rep.rewardStd.ratio, 2)} | ${fmt(rep.entropy.ratio, 2)} | ${fmt(rep.length.ratio, 2)} | ${rep.alarm ? `on since step ${rep.sinceStep}` : 'off'} |`;
});
const echoCurves =
  echo.length > 0
    ? [
        band(
          'echo-trap',
          echo.map((r) => smooth(r.metrics.map((m) => ({ x: m.step, y: m.reward_mean })))),
        ),
        ...rewardCurves.filter((c) => c.name === 'turn-shared'),
      ]
    : [];

mkdirSync(join(DOCS, 'figures'), { recursive: true });
writeFileSync(
  join(DOCS, 'figures/fig6-reward.svg'),
  bandChartSvg({
    title: 'Fig. 6 variants: mean over seeds, band = min..max',
    panels: [
      { title: 'rollout reward (5-step moving average)', xLabel: 'step', yLabel: 'reward', series: rewardCurves },
    ],
  }),
);
writeFileSync(
  join(DOCS, 'figures/fig6-eval.svg'),
  bandChartSvg({
    title: 'Fig. 6 variants: mean over seeds, band = min..max',
    panels: [
      { title: 'held-out greedy accuracy (128 problems)', xLabel: 'step', yLabel: 'accuracy', series: evalCurves },
    ],
  }),
);
if (echoCurves.length > 0)
  writeFileSync(
    join(DOCS, 'figures/echo-trap-reward.svg'),
    bandChartSvg({
      title: 'Echo Trap setting vs default: mean over seeds, band = min..max',
      panels: [
        { title: 'rollout reward (5-step moving average)', xLabel: 'step', yLabel: 'reward', series: echoCurves },
      ],
    }),
  );

const table = [
  '<!-- generated by scripts/replication/report.ts from results/fig6/summary.json; do not edit by hand -->',
  '',
  '| variant | seeds | steps | mean reward over the run (AUC) | final held-out accuracy | gain over step 0 | best held-out accuracy | clip fraction (low + high), mean per step |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows,
  '',
  'Each cell: mean ± standard deviation over seeds (min–max).',
  '',
  ...(echoRows.length > 0
    ? [
        '| echo-trap seed | steps | held-out accuracy | reward std (recent / start) | entropy (recent / start) | length (recent / start) | alarm |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        ...echoRows,
      ]
    : []),
  '',
].join('\n');
writeFileSync(join(DOCS, 'replication-results.md'), table);
