// A line chart as a standalone SVG string: one series per curve, its mean as a line and its min-max as a band,
// with axes, ticks and a legend. Small enough to read; no dependency, so the report runs anywhere.

export interface Curve {
  name: string;
  x: number[];
  mean: number[];
  lo: number[];
  hi: number[];
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];
const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Round tick values covering [lo, hi]. */
function ticks(lo: number, hi: number, n = 5): number[] {
  const span = hi - lo || 1;
  const step0 = span / n;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0)!;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-12; t += step) out.push(Number(t.toFixed(10)));
  return out;
}

export function curvesSvg(
  curves: readonly Curve[],
  opts: { title: string; xLabel: string; yLabel: string; width?: number; height?: number },
): string {
  const W = opts.width ?? 720;
  const H = opts.height ?? 400;
  const m = { l: 56, r: 16, t: 36, b: 48 };
  const xs = curves.flatMap((c) => c.x);
  const ys = curves.flatMap((c) => [...c.lo, ...c.hi]);
  const [x0, x1] = xs.length > 0 ? [Math.min(...xs), Math.max(...xs)] : [0, 1];
  const [y0, y1] = ys.length > 0 ? [Math.min(...ys), Math.max(...ys)] : [0, 1];
  const px = (x: number) => m.l + ((x - x0) / (x1 - x0 || 1)) * (W - m.l - m.r);
  const py = (y: number) => H - m.b - ((y - y0) / (y1 - y0 || 1)) * (H - m.t - m.b);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${esc(opts.title)}</text>`,
  ];
  for (const t of ticks(x0, x1))
    parts.push(
      `<line x1="${px(t)}" y1="${H - m.b}" x2="${px(t)}" y2="${H - m.b + 4}" stroke="#333"/><text x="${px(t)}" y="${H - m.b + 16}" text-anchor="middle">${t}</text>`,
    );
  for (const t of ticks(y0, y1))
    parts.push(
      `<line x1="${m.l}" y1="${py(t)}" x2="${W - m.r}" y2="${py(t)}" stroke="#eee"/><text x="${m.l - 6}" y="${py(t) + 4}" text-anchor="end">${t}</text>`,
    );
  parts.push(
    `<line x1="${m.l}" y1="${H - m.b}" x2="${W - m.r}" y2="${H - m.b}" stroke="#333"/><line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${H - m.b}" stroke="#333"/>`,
    `<text x="${(m.l + W - m.r) / 2}" y="${H - 10}" text-anchor="middle">${esc(opts.xLabel)}</text>`,
    `<text x="14" y="${(m.t + H - m.b) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(m.t + H - m.b) / 2})">${esc(opts.yLabel)}</text>`,
  );
  curves.forEach((c, i) => {
    const color = COLORS[i % COLORS.length];
    const upper = c.x.map((x, k) => `${px(x).toFixed(1)},${py(c.hi[k]).toFixed(1)}`);
    const lower = c.x.map((x, k) => `${px(x).toFixed(1)},${py(c.lo[k]).toFixed(1)}`).toReversed();
    parts.push(
      `<g class="series" data-name="${esc(c.name)}">`,
      `<polygon points="${[...upper, ...lower].join(' ')}" fill="${color}" fill-opacity="0.15" stroke="none"/>`,
      `<polyline points="${c.x.map((x, k) => `${px(x).toFixed(1)},${py(c.mean[k]).toFixed(1)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`,
      `<rect x="${m.l + 10}" y="${m.t + 6 + i * 16}" width="12" height="3" fill="${color}"/><text x="${m.l + 28}" y="${m.t + 11 + i * 16}">${esc(c.name)}</text>`,
      '</g>',
    );
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
