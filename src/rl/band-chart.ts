// The one band-chart writer: panels stacked under a title, each with axes, ticks and labels, overlaying one
// series per name as its mean line over a band (min..max, or whatever the caller puts in min / max), and one
// legend for all panels. A plain string, so `rema sweep`, the page's download and the report scripts share it.

/** One x value of a series: the mean line's height and the band's bottom and top there. */
export interface BandPoint {
  step: number;
  mean: number;
  min: number;
  max: number;
}

/** One curve: its legend name and points in step order. A single point is drawn as a dot. */
export interface BandSeries {
  name: string;
  points: readonly BandPoint[];
}

export interface BandPanel {
  /** the quantity drawn, above the panel (also its data-quantity attribute) */
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly BandSeries[];
}

export interface BandChart {
  /** the line above the panels (and the document's <title>) */
  title: string;
  panels: readonly BandPanel[];
  /** default 720 */
  width?: number;
  /** height of each panel's plot area, default 220 */
  panelHeight?: number;
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

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A coordinate or label rounded to 2 decimals. */
const num = (x: number): string => String(Math.round(x * 100) / 100);

/** Round tick values covering [lo, hi]: about n of them, at 1, 2 or 5 times a power of ten. */
export function ticks(lo: number, hi: number, n = 5): number[] {
  const span = hi - lo || 1;
  const step0 = span / n;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0)!;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-12; t += step) out.push(Number(t.toFixed(10)));
  return out;
}

interface Box {
  x0: number;
  y0: number;
  w: number;
  h: number;
}

function drawPanel(p: BandPanel, box: Box, colorOf: (name: string) => string): string {
  const { x0, y0, w, h } = box;
  const out: string[] = [
    `<g class="panel" data-quantity="${esc(p.title)}">`,
    `<text x="${x0}" y="${y0 - 8}" font-size="13">${esc(p.title)}</text>`,
    `<rect x="${x0}" y="${y0}" width="${w}" height="${h}" fill="none" stroke="#999"/>`,
  ];
  const all = p.series.flatMap((s) => s.points);
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
  for (const t of ticks(lo, hi))
    out.push(
      `<line x1="${x0}" y1="${num(Y(t))}" x2="${x0 + w}" y2="${num(Y(t))}" stroke="#eee"/>` +
        `<text x="${x0 - 4}" y="${num(Y(t) + 4)}" font-size="10" text-anchor="end">${t}</text>`,
    );
  for (const t of s1 === s0 ? [s0] : ticks(s0, s1))
    out.push(
      `<line x1="${num(X(t))}" y1="${y0 + h}" x2="${num(X(t))}" y2="${y0 + h + 4}" stroke="#333"/>` +
        `<text x="${num(X(t))}" y="${y0 + h + 15}" font-size="10" text-anchor="middle">${t}</text>`,
    );
  const midY = y0 + h / 2;
  out.push(
    `<text x="${x0 + w / 2}" y="${y0 + h + 30}" font-size="11" text-anchor="middle">${esc(p.xLabel)}</text>`,
    `<text x="${x0 - 40}" y="${midY}" font-size="11" text-anchor="middle" transform="rotate(-90 ${x0 - 40} ${midY})">${esc(p.yLabel)}</text>`,
  );
  for (const s of p.series) {
    if (s.points.length === 0) continue;
    const color = colorOf(s.name);
    const upper = s.points.map((q) => `${num(X(q.step))},${num(Y(q.max))}`);
    const lower = s.points.map((q) => `${num(X(q.step))},${num(Y(q.min))}`).toReversed();
    const mean = s.points.map((q, i) => `${i === 0 ? 'M' : 'L'}${num(X(q.step))},${num(Y(q.mean))}`).join(' ');
    out.push(
      `<g class="series" data-config="${esc(s.name)}">`,
      `<polygon class="band" points="${[...upper, ...lower].join(' ')}" fill="${color}" fill-opacity="0.18" stroke="none"/>`,
      s.points.length === 1
        ? `<circle class="mean" cx="${num(X(s.points[0].step))}" cy="${num(Y(s.points[0].mean))}" r="3" fill="${color}"/>`
        : `<path class="mean" d="${mean}" fill="none" stroke="${color}" stroke-width="2"/>`,
      '</g>',
    );
  }
  out.push('</g>');
  return out.join('\n');
}

/** The chart as a standalone SVG document. Colors follow the order in which names first appear over the panels. */
export function bandChartSvg(chart: BandChart): string {
  const names = [...new Set(chart.panels.flatMap((p) => p.series.map((s) => s.name)))];
  const colorOf = (name: string) => COLORS[names.indexOf(name) % COLORS.length];
  const W = chart.width ?? 720;
  const ph = chart.panelHeight ?? 220;
  const left = 64;
  const top = 48;
  const gap = 72;
  const legendRow = 18;
  const legendTop = top + chart.panels.length * (ph + gap) - 16;
  const H = legendTop + names.length * legendRow + 12;
  const body = chart.panels.map((p, i) =>
    drawPanel(p, { x0: left, y0: top + i * (ph + gap), w: W - left - 20, h: ph }, colorOf),
  );
  const legend = names.map((name, i) => {
    const y = legendTop + i * legendRow;
    return `<g class="legend" data-config="${esc(name)}"><rect x="${left}" y="${y - 9}" width="14" height="10" fill="${colorOf(name)}"/><text x="${left + 20}" y="${y}" font-size="11">${esc(name)}</text></g>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">`,
    `<title>${esc(chart.title)}</title>`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${left}" y="18" font-size="14">${esc(chart.title)}</text>`,
    ...body,
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
