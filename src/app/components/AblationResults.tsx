// An ablation's results above the views: the overlaid curves (per config the mean over seeds with a min-max
// band, drawn by ablation-curves.ts, the same chart `rema sweep` writes), a table per config (final and best
// held-out accuracy and its size, area under the reward curve, steps, trained tokens, wall time) and the exports
// (JSON, CSV, SVG, PNG). A protocol preset is named by its row of the paper's Table 1.
import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { metricSpread, pointLabel, type RunRow } from '../../rl/ablation.ts';
import { armLabel } from '../../rl/protocol-arms.ts';
import {
  ablationChartSvg,
  ablationCsv,
  ablationJson,
  ablationPoints,
  ablationRows,
  svgToPng,
} from '../io/ablation-export.ts';
import { downloadFile } from '../io/download.ts';
import type { AblationRecord } from '../persist/ablation-types.ts';
import { usePlayground } from '../store/react.ts';

const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : '–');
const fix = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const count = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–');

function Spread({
  rows,
  k,
  format,
}: {
  rows: RunRow[];
  k: 'eval_last' | 'eval_best' | 'reward_auc';
  format: (x: number) => string;
}) {
  const st = metricSpread(rows, k);
  if (st.n === 0) return <>–</>;
  return (
    <>
      {format(st.mean)}
      {st.n > 1 ? (
        <span className="hint">
          {' '}
          ({format(st.min)}–{format(st.max)})
        </span>
      ) : null}
    </>
  );
}

function ConfigTable({ record }: { record: AblationRecord }) {
  const rows = ablationRows({ ...record, runs: record.runs.filter((r) => r.status === 'done') });
  return (
    <table className="ablation-table" data-testid="ablation-table">
      <thead>
        <tr>
          <th>config</th>
          <th>seeds done</th>
          <th title="held-out greedy accuracy at the last evaluation: mean over seeds (min–max)">final held-out</th>
          <th title="best held-out accuracy of each run: mean over seeds (min–max)">best held-out</th>
          <th title="area under the training-reward curve per step (sample efficiency, the paper's Fig. 6 measure)">
            reward AUC
          </th>
          <th title="held-out problems per evaluation">eval n</th>
          <th>steps</th>
          <th title="tokens the trained agents generated and were trained on, per run: mean over seeds">tokens</th>
          <th title="wall-clock time of the runs, summed over seeds">wall time</th>
        </tr>
      </thead>
      <tbody>
        {ablationPoints(record).map((p) => {
          const label = pointLabel(p);
          const rs = rows.filter((r) => r.label === label);
          const wall = record.runs
            .filter((r) => r.label === label && r.status === 'done')
            .reduce((a, r) => a + r.wall_s, 0);
          return (
            <tr key={label} data-testid="ablation-config-row" data-config={label}>
              <td title={label}>{armLabel(p, label, record.base)}</td>
              <td>
                {rs.length}/{record.spec.seeds.length}
              </td>
              <td>
                <Spread rows={rs} k="eval_last" format={pct} />
              </td>
              <td>
                <Spread rows={rs} k="eval_best" format={pct} />
              </td>
              <td>
                <Spread rows={rs} k="reward_auc" format={fix} />
              </td>
              <td>{count(metricSpread(rs, 'eval_n').mean)}</td>
              <td>{rs.length > 0 ? metricSpread(rs, 'steps').mean : '–'}</td>
              <td>
                {rs.length > 0 ? Math.round(metricSpread(rs, 'tokens_trained').mean).toLocaleString('en-US') : '–'}
              </td>
              <td>{rs.length > 0 ? `${wall.toFixed(1)} s` : '–'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function AblationResults() {
  const record = usePlayground(useShallow((st) => st.ablation));
  const svg = useMemo(() => (record ? ablationChartSvg(record) : ''), [record]);
  if (!record) return null;
  const stem = `ablation-${record.id}`;
  const exportPng = async () => downloadFile(`${stem}.png`, await svgToPng(svg), 'image/png');
  return (
    <section
      className="ablation-results panel"
      aria-label="ablation results"
      data-testid="ablation-results"
      data-status={record.status}
    >
      <h3>
        Ablation: {record.spec.axes.map((a) => a.field).join(' × ')} · {record.spec.seeds.length} seed
        {record.spec.seeds.length === 1 ? '' : 's'} · {record.status}
      </h3>
      {/* the SVG is generated from numbers and escaped labels (ablation-curves.ts) */}
      <div className="ablation-chart" data-testid="ablation-chart" dangerouslySetInnerHTML={{ __html: svg }} />
      <ConfigTable record={record} />
      <div className="row">
        <button
          type="button"
          data-testid="ablation-export-json"
          onClick={() => downloadFile(`${stem}.json`, ablationJson(record), 'application/json')}
        >
          Export JSON
        </button>
        <button
          type="button"
          data-testid="ablation-export-csv"
          onClick={() => downloadFile(`${stem}.csv`, ablationCsv(record), 'text/csv')}
        >
          Export CSV
        </button>
        <button
          type="button"
          data-testid="ablation-export-svg"
          onClick={() => downloadFile(`${stem}.svg`, svg, 'image/svg+xml')}
        >
          Chart SVG
        </button>
        <button type="button" data-testid="ablation-export-png" onClick={() => void exportPng()}>
          Chart PNG
        </button>
      </div>
    </section>
  );
}
