// Curves of an ablation (configs x seeds) reduced over seeds, and drawn as one SVG: per config the mean curve
// with a min-max band, overlaid, one panel per quantity (training reward; held-out accuracy when there are
// evaluations). Plain strings and numbers, so the CLI's sweep writes it to a file and the page can offer the same
// chart for download.

/** One run: the config it belongs to and its curves (step -> value). */
export interface RunCurves {
  config: string;
  seed: number;
  reward: ReadonlyArray<{ step: number; value: number }>;
  eval: ReadonlyArray<{ step: number; value: number }>;
}

/** A config's curve over seeds: at each step the seeds that reached it. */
export interface BandPoint {
  step: number;
  mean: number;
  min: number;
  max: number;
  n: number;
}

/** mean, min, max and sample standard deviation (0 for one value); NaN for none. Non-finite values are skipped. */
export function spread(values: readonly number[]): { mean: number; min: number; max: number; std: number; n: number } {
  const xs = values.filter((x) => Number.isFinite(x));
  if (xs.length === 0) return { mean: Number.NaN, min: Number.NaN, max: Number.NaN, std: Number.NaN, n: 0 };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const std = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, min: Math.min(...xs), max: Math.max(...xs), std, n: xs.length };
}

/** Per step, the mean / min / max over the runs' values at that step. */
export function band(curves: ReadonlyArray<ReadonlyArray<{ step: number; value: number }>>): BandPoint[] {
  const byStep = new Map<number, number[]>();
  for (const c of curves) for (const p of c) (byStep.get(p.step) ?? byStep.set(p.step, []).get(p.step)!).push(p.value);
  return [...byStep.entries()]
    .toSorted((a, b) => a[0] - b[0])
    .map(([step, vs]) => ({ step, ...spread(vs) }))
    .filter((p) => p.n > 0)
    .map(({ step, mean, min, max, n }) => ({ step, mean, min, max, n }));
}

/** Area under a curve over its steps (trapezoids), divided by the step span: the mean level, the paper's
 *  sample-efficiency measure. One point: its value. */
export function meanArea(curve: ReadonlyArray<{ step: number; value: number }>): number {
  const pts = curve.filter((p) => Number.isFinite(p.value)).toSorted((a, b) => a.step - b.step);
  if (pts.length === 0) return Number.NaN;
  if (pts.length === 1) return pts[0].value;
  let area = 0;
  for (let i = 1; i < pts.length; i++)
    area += ((pts[i].value + pts[i - 1].value) / 2) * (pts[i].step - pts[i - 1].step);
  return area / (pts[pts.length - 1].step - pts[0].step);
}

const COLORS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#ff7f0e',
  '#17becf',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function num(x: number): string {
  return String(Math.round(x * 100) / 100);
}

interface Panel {
  title: string;
  series: Array<{ config: string; points: BandPoint[] }>;
}

function drawPanel(
  p: Panel,
  x0: number,
  y0: number,
  w: number,
  h: number,
  colorOf: (config: string) => string,
): string {
  const all = p.series.flatMap((s) => s.points);
  const out: string[] = [
    `<g class="panel" data-quantity="${esc(p.title)}">`,
    `<text x="${x0}" y="${y0 - 8}" font-size="13">${esc(p.title)}</text>`,
  ];
  out.push(`<rect x="${x0}" y="${y0}" width="${w}" height="${h}" fill="none" stroke="#999"/>`);
  if (all.length === 0) return out.concat('</g>').join('\n');
  const s0 = Math.min(...all.map((q) => q.step));
  const s1 = Math.max(...all.map((q) => q.step));
  let lo = Math.min(...all.map((q) => q.min));
  let hi = Math.max(...all.map((q) => q.max));
  if (hi - lo < 1e-9) {
    lo -= 0.5;
    hi += 0.5;
  }
  const X = (step: number) => x0 + (s1 === s0 ? w / 2 : ((step - s0) / (s1 - s0)) * w);
  const Y = (v: number) => y0 + h - ((v - lo) / (hi - lo)) * h;
  out.push(`<text x="${x0 - 4}" y="${y0 + 10}" font-size="10" text-anchor="end">${num(hi)}</text>`);
  out.push(`<text x="${x0 - 4}" y="${y0 + h}" font-size="10" text-anchor="end">${num(lo)}</text>`);
  out.push(`<text x="${x0}" y="${y0 + h + 14}" font-size="10">step ${s0}</text>`);
  out.push(`<text x="${x0 + w}" y="${y0 + h + 14}" font-size="10" text-anchor="end">step ${s1}</text>`);
  for (const s of p.series) {
    if (s.points.length === 0) continue;
    const color = colorOf(s.config);
    const upper = s.points.map((q) => `${num(X(q.step))},${num(Y(q.max))}`);
    const lower = s.points.map((q) => `${num(X(q.step))},${num(Y(q.min))}`).toReversed();
    const mean = s.points.map((q, i) => `${i === 0 ? 'M' : 'L'}${num(X(q.step))},${num(Y(q.mean))}`).join(' ');
    out.push(`<g class="series" data-config="${esc(s.config)}">`);
    out.push(
      `<polygon class="band" points="${[...upper, ...lower].join(' ')}" fill="${color}" fill-opacity="0.18" stroke="none"/>`,
    );
    out.push(
      s.points.length === 1
        ? `<circle class="mean" cx="${num(X(s.points[0].step))}" cy="${num(Y(s.points[0].mean))}" r="3" fill="${color}"/>`
        : `<path class="mean" d="${mean}" fill="none" stroke="${color}" stroke-width="2"/>`,
    );
    out.push('</g>');
  }
  out.push('</g>');
  return out.join('\n');
}

/** The overlaid curves as a standalone SVG document: one series (mean line + min-max band) per config and panel. */
export function ablationSvg(runs: readonly RunCurves[], title = 'ablation'): string {
  const configs = [...new Set(runs.map((r) => r.config))];
  const colorOf = (c: string) => COLORS[configs.indexOf(c) % COLORS.length];
  const panels: Panel[] = [
    {
      title: "training reward (mean over the step's rollouts)",
      series: configs.map((c) => ({
        config: c,
        points: band(runs.filter((r) => r.config === c).map((r) => r.reward)),
      })),
    },
  ];
  if (runs.some((r) => r.eval.length > 0)) {
    panels.push({
      title: 'held-out accuracy (greedy)',
      series: configs.map((c) => ({ config: c, points: band(runs.filter((r) => r.config === c).map((r) => r.eval)) })),
    });
  }
  const W = 720,
    ph = 220,
    left = 60,
    top = 40,
    gap = 60,
    legendRow = 18;
  const legendTop = top + panels.length * (ph + gap);
  const H = legendTop + configs.length * legendRow + 20;
  const seeds = new Set(runs.map((r) => r.seed)).size;
  const body = panels.map((p, i) => drawPanel(p, left, top + i * (ph + gap), W - left - 20, ph, colorOf));
  const legend = configs.map((c, i) => {
    const y = legendTop + i * legendRow;
    return `<g class="legend" data-config="${esc(c)}"><rect x="${left}" y="${y - 9}" width="14" height="10" fill="${colorOf(c)}"/><text x="${left + 20}" y="${y}" font-size="11">${esc(c)}</text></g>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">`,
    `<title>${esc(title)}</title>`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${left}" y="18" font-size="14">${esc(title)}: mean over ${seeds} seed${seeds === 1 ? '' : 's'}, band = min..max</text>`,
    ...body,
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
