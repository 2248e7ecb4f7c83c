// An ablation's results in the forms the page exports: per-run summaries (the same RunRow and summary.csv as
// `rema sweep`), the whole ablation as JSON, the overlaid curves as SVG (ablation-curves.ts) and PNG.
import { ablationSvg } from '../../rl/ablation-curves.ts';
import { gridPoints, summarizeRun, summaryCsv, type RunRow } from '../../rl/ablation.ts';
import { armLabel } from '../../rl/protocol-arms.ts';
import type { AblationRecord } from '../persist/ablation-types.ts';

/** Summaries of the runs that have steps or an evaluation (finished or not; an evaluated-only arm has no steps), in
 *  the ablation's run order. */
export function ablationRows(record: AblationRecord): RunRow[] {
  return record.runs
    .filter((r) => r.metrics.length > 0 || r.evals.length > 0)
    .map((r) => summarizeRun(r.label, r.point, r.seed, r));
}

export function ablationPoints(record: AblationRecord): Record<string, unknown>[] {
  return gridPoints(Object.fromEntries(record.spec.axes.map((a) => [a.field, a.values])));
}

/** summary.csv of the finished runs: one row per run, then one per config with the spread over seeds. */
export function ablationCsv(record: AblationRecord): string {
  const done = { ...record, runs: record.runs.filter((r) => r.status === 'done') };
  return summaryCsv(
    record.spec.axes.map((a) => a.field),
    ablationPoints(record),
    ablationRows(done),
  );
}

export function ablationTitle(record: AblationRecord): string {
  return `${record.base.name}: ${record.spec.axes.map((a) => a.field).join(' x ')} (${record.model})`;
}

export function ablationChartSvg(record: AblationRecord): string {
  return ablationSvg(
    ablationRows(record).map((r) => ({ ...r.curves, config: armLabel(r.point, r.label, record.base) })),
    ablationTitle(record),
  );
}

/** The whole ablation: spec, base config, model, every run's curves and status, and the per-run summaries. */
export function ablationJson(record: AblationRecord): string {
  const summaries = ablationRows(record).map(({ curves: _curves, ...row }) => row);
  return JSON.stringify({ format: 'rema-playground-ablation', version: 1, ...record, summaries }, null, 2) + '\n';
}

/** The SVG drawn on a canvas at 2x, as PNG bytes. */
export async function svgToPng(svg: string): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    await new Promise<void>((resolve, reject) => {
      img.addEventListener('load', () => resolve(), { once: true });
      img.addEventListener('error', () => reject(new Error('the chart could not be drawn as an image')), {
        once: true,
      });
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = img.width * 2;
    canvas.height = img.height * 2;
    const g = canvas.getContext('2d');
    if (!g) throw new Error('no 2D canvas to draw the chart on');
    g.scale(2, 2);
    g.drawImage(img, 0, 0);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}
