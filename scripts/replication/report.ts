// Turns the Fig. 6 run folders (results/fig6/<variant>/seed-<s>, written by fig6.ts) into the figures and the
// tables of docs/replication.md: per variant, the mean over seeds with a min-max band of the rollout reward and of
// the held-out greedy accuracy, the area under the reward curve (the paper's sample-efficiency measure), final and
// best accuracy, clip fractions (to show the ratio acts), and the Echo Trap alarm per seed. Only finished steps
// count; a variant with fewer seeds or steps says so in the table.
//   npx tsx scripts/replication/report.ts   -> docs/figures/fig6-*.svg, docs/replication-results.md
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { detectEchoTrap } from '../../src/app/analysis/echo-trap.ts';
import type { MetricsRecord } from '../../src/rl/metrics.ts';
import { band, mean, sd as std } from '../lib/stats.ts';
import { bandChartSvg, type BandSeries } from '../../src/rl/band-chart.ts';
import { FIG6_ROOT, VARIANTS } from './variants.ts';

const DOCS = resolve(import.meta.dirname, '../../docs');

interface Run {
  seed: number;
  metrics: MetricsRecord[];
  evals: { step: number; accuracy: number }[];
}

const readJsonl = <T>(path: string): T[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as T];
          } catch {
            return [];
          }
        })
    : [];

function runsOf(variant: string): Run[] {
  const dir = join(FIG6_ROOT, variant);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => /^seed-\d+$/.test(n))
    .map((n) => ({
      seed: Number(n.slice(5)),
      metrics: readJsonl<MetricsRecord>(join(dir, n, 'metrics.jsonl')),
      evals: readJsonl<{ step: number; accuracy: number }>(join(dir, n, 'eval.jsonl')),
    }))
    .filter((r) => r.metrics.length > 0)
    .toSorted((a, b) => a.seed - b.seed);
}

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
  '<!-- generated by scripts/replication/report.ts from results/fig6; do not edit by hand -->',
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
console.log(table);
