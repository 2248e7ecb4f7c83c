// The live curves: one small recharts chart per spec. Line charts draw the current run and every overlaid run
// (one colour per run, one dash per series), optionally EMA-smoothed and over minutes of training instead of steps;
// stacked charts show the current run's step-by-step breakdown (a spec with `when` only for runs it applies to; the
// meta-action histogram comes with its per-difficulty view, ActionLevels).
// The charts redraw at most every CHART_REDRAW_MS, less often when a redraw is slow (redraw-budget.ts), as a
// transition, so a fast run never starves clicks nor the training worker; and only while on screen
// (use-on-screen.ts): a chart below the fold catches up when it scrolls into view.
// A click on a line chart opens "Explain this step" at the step clicked.
import { memo, useCallback, useLayoutEffect, useMemo, useRef } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { useShallow } from 'zustand/react/shallow';
import type { SavedRun } from '../../persist/run-types.ts';
import { usePlayground } from '../../store/react.ts';
import { runSelectors } from '../../store/selectors.ts';
import type { ChartX } from '../../store/types.ts';
import { ActionLevels } from './ActionLevels.tsx';
import { chartSpecs, hasActions, type ChartSpec } from './chart-specs.ts';
import { emaSmooth, minutesAtStep, SMOOTHING_WEIGHTS } from './smoothing.ts';
import { chartRedrawInterval } from './redraw-budget.ts';
import { thinEvenly } from './thin.ts';
import { useHeldUnless, useOnScreen } from './use-on-screen.ts';
import { useThrottledValue } from './use-throttled-value.ts';

/** most points per line and most bars per stacked chart (beyond that, evenly spaced steps are drawn) */
export const MAX_LINE_POINTS = 300;
export const MAX_BARS = 80;

export const runColors = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#be185d', '#4d7c0f'];
const dashes = ['', '6 3', '2 2', '8 2 2 2'];
const stackColors = ['#16a34a', '#f59e0b', '#dc2626', '#7c3aed', '#0ea5e9', '#64748b', '#db2777'];

const fmt = (v: unknown) =>
  typeof v === 'number' ? (Math.abs(v) >= 100 || v === 0 ? v.toFixed(0) : v.toPrecision(3)) : String(v);

const fromZeroDomain: [number, (dataMax: number) => number] = [0, (dataMax) => (dataMax > 0 ? dataMax : 0.01)];

/** points of both lists, one per step (the later list wins), in step order */
function mergeByStep(a: { step: number; value: number }[], b: { step: number; value: number }[]) {
  const byStep = new Map<number, number>();
  for (const p of [...a, ...b]) byStep.set(p.step, p.value);
  return [...byStep.entries()].toSorted((x, y) => x[0] - y[0]).map(([step, value]) => ({ step, value }));
}

function LineSpecChart({
  spec,
  runs,
  smoothing,
  xAxis,
}: {
  spec: ChartSpec;
  runs: SavedRun[];
  smoothing: number;
  xAxis: ChartX;
}) {
  // one data array per (run, series): recharts lines may each carry their own data; x is the step or the minutes
  // of training when it ended, values are smoothed over all steps before thinning
  const lines = useMemo(
    () =>
      runs.flatMap((run, r) => {
        const minutes = xAxis === 'minutes' ? minutesAtStep(run.metrics) : null;
        return spec.series.map((series, si) => ({
          key: `${run.id}:${series.label}`,
          name: runs.length > 1 ? `${series.label} · ${run.name}` : series.label,
          color: runs.length > 1 ? runColors[r % runColors.length] : runColors[si % runColors.length],
          dash: runs.length > 1 ? dashes[si % dashes.length] : '',
          data: thinEvenly(
            emaSmooth(
              mergeByStep(
                run.metrics
                  .map((m) => ({ step: m.step, value: series.value(m) }))
                  .filter((d): d is { step: number; value: number } => d.value !== undefined),
                series.extra?.(run) ?? [],
              ),
              smoothing,
            ),
            MAX_LINE_POINTS,
          ).map((p) => ({ ...p, x: minutes ? (minutes.get(p.step) ?? null) : p.step })),
        }));
      }),
    [runs, spec, smoothing, xAxis],
  );
  // a click on a step opens "Explain this step" there (the nearest recorded step at or before it)
  const openExplain = usePlayground((s) => s.openExplain);
  const onClick = (e: { activeLabel?: string | number } | null) => {
    const x = Number(e?.activeLabel);
    if (!Number.isFinite(x)) return;
    const step = xAxis === 'step' ? x : lines.flatMap((l) => l.data).find((d) => d.x === x)?.step;
    if (step !== undefined) openExplain(step);
  };
  return (
    <LineChart margin={{ top: 4, right: 8, bottom: 0, left: 0 }} onClick={onClick} style={{ cursor: 'pointer' }}>
      <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
      <XAxis
        dataKey="x"
        type="number"
        domain={['dataMin', 'dataMax']}
        allowDecimals={xAxis === 'minutes'}
        tick={{ fontSize: 10 }}
        tickFormatter={xAxis === 'minutes' ? fmt : undefined}
      />
      <YAxis
        domain={spec.domain ?? (spec.fromZero ? fromZeroDomain : ['auto', 'auto'])}
        tick={{ fontSize: 10 }}
        tickFormatter={fmt}
        width={44}
      />
      <Tooltip
        formatter={fmt}
        labelFormatter={(l) => (xAxis === 'minutes' ? `${fmt(l)} min` : `step ${l}`)}
        contentStyle={{ fontSize: 11 }}
      />
      {runs.length === 1 && <Legend wrapperStyle={{ fontSize: 10 }} />}
      {lines.map((l) => (
        <Line
          key={l.key}
          data={l.data}
          dataKey="value"
          name={l.name}
          stroke={l.color}
          strokeDasharray={l.dash}
          dot={l.data.length < 30 ? { r: 2 } : false}
          isAnimationActive={false}
          connectNulls
        />
      ))}
    </LineChart>
  );
}

function StackedSpecChart({ spec, run }: { spec: ChartSpec; run: SavedRun | null }) {
  const data = useMemo(
    () =>
      // keys are prefixed: recharts spreads a bar's data entry onto its <path>, so a key named "ref" (the
      // reference-log-prob stage) would become a React ref
      thinEvenly(run?.metrics ?? [], MAX_BARS).map((m) =>
        Object.fromEntries([['step', m.step], ...spec.series.map((s) => [`v_${s.label}`, s.value(m) ?? 0])]),
      ),
    [run, spec],
  );
  return (
    <BarChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
      <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
      <XAxis dataKey="step" tick={{ fontSize: 10 }} />
      <YAxis domain={spec.domain ?? [0, 'auto']} tick={{ fontSize: 10 }} tickFormatter={fmt} width={44} />
      <Tooltip formatter={fmt} labelFormatter={(l) => `step ${l}`} contentStyle={{ fontSize: 11 }} />
      <Legend wrapperStyle={{ fontSize: 10 }} />
      {spec.series.map((s, i) => (
        <Bar
          key={s.label}
          dataKey={`v_${s.label}`}
          name={s.label}
          stackId="a"
          fill={stackColors[i % stackColors.length]}
          isAnimationActive={false}
        />
      ))}
    </BarChart>
  );
}

export function Charts() {
  const { current, saved, overlayIds, smoothing, xAxis } = usePlayground(
    useShallow((s) => ({
      current: s.currentRun,
      saved: s.runs,
      overlayIds: s.overlayIds,
      smoothing: s.chartSmoothing,
      xAxis: s.chartX,
    })),
  );
  const latest = useMemo(
    () => ({ current, runs: runSelectors.chartRuns(current, saved, overlayIds) }),
    [current, saved, overlayIds],
  );
  // the last redraw's time (ms), from ChartsOf's render to the end of the frame that paints it
  const drawMs = useRef(0);
  const interval = useCallback(() => chartRedrawInterval(drawMs.current), []);
  const onDrawn = useCallback((ms: number) => {
    drawMs.current = ms;
  }, []);
  const { runs, current: shownCurrent } = useThrottledValue(latest, interval);
  return (
    <>
      <ChartOptions />
      <ChartsOf runs={runs} current={shownCurrent} smoothing={smoothing} xAxis={xAxis} onDrawn={onDrawn} />
    </>
  );
}

/** Smoothing and x-axis choices of the curves (in the store and the URL: smooth=, x=). */
function ChartOptions() {
  const { smoothing, xAxis, setSmoothing, setX } = usePlayground(
    useShallow((s) => ({
      smoothing: s.chartSmoothing,
      xAxis: s.chartX,
      setSmoothing: s.setChartSmoothing,
      setX: s.setChartX,
    })),
  );
  return (
    <div className="chart-options" data-testid="chart-options">
      <label title="Exponential moving average of each curve (debiased, as TensorBoard): 0 shows the raw per-step values">
        smoothing{' '}
        <select data-testid="chart-smoothing" value={smoothing} onChange={(e) => setSmoothing(Number(e.target.value))}>
          {SMOOTHING_WEIGHTS.map((w) => (
            <option key={w} value={w}>
              {w === 0 ? 'off' : w}
            </option>
          ))}
        </select>
      </label>
      <label title="The x axis: the step, or the minutes of training when the step ended (its stage times summed)">
        x axis{' '}
        <select data-testid="chart-x" value={xAxis} onChange={(e) => setX(e.target.value as ChartX)}>
          <option value="step">steps</option>
          <option value="minutes">minutes</option>
        </select>
      </label>
    </div>
  );
}

/** `fn` once the next frame is painted: a task after the next animation frame (or a task, without frames) */
function afterNextPaint(fn: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => setTimeout(fn, 0));
  else setTimeout(fn, 0);
}

interface ChartDrawing {
  runs: SavedRun[];
  stackedRun: SavedRun | null;
  points: number;
  longRun: number;
  smoothing: number;
  xAxis: ChartX;
}

/** One chart: redrawn with each new value while on screen (use-on-screen.ts); off screen it keeps its last drawing. */
const ChartFigure = memo(function ChartFigure({ spec, ...drawing }: { spec: ChartSpec } & ChartDrawing) {
  const ref = useRef<HTMLElement>(null);
  const onScreen = useOnScreen(ref);
  const shown = useHeldUnless(drawing, onScreen);
  return (
    <figure ref={ref} className="chart" data-chart={spec.id} data-points={shown.points.toString()}>
      <ChartBody spec={spec} {...shown} />
    </figure>
  );
});

const ChartBody = memo(function ChartBody({
  spec,
  runs,
  stackedRun,
  longRun,
  smoothing,
  xAxis,
}: { spec: ChartSpec } & ChartDrawing) {
  return (
    <>
      <figcaption
        title={longRun ? `${spec.note} This run has ${longRun} steps: evenly spaced steps are drawn.` : spec.note}
      >
        {spec.title}
      </figcaption>
      <div className="chart-body">
        <ResponsiveContainer width="100%" height="100%" minWidth={0}>
          {spec.kind === 'line' ? (
            <LineSpecChart spec={spec} runs={runs} smoothing={smoothing} xAxis={xAxis} />
          ) : (
            <StackedSpecChart spec={spec} run={stackedRun} />
          )}
        </ResponsiveContainer>
      </div>
    </>
  );
});

// memo: the parent re-renders on every step; this part only when the throttled value or the options move
const ChartsOf = memo(function ChartsOf({
  runs,
  current,
  smoothing,
  xAxis,
  onDrawn,
}: {
  runs: SavedRun[];
  current: SavedRun | null;
  smoothing: number;
  xAxis: ChartX;
  /** how long this redraw took, render to painted (ms) */
  onDrawn?: (ms: number) => void;
}) {
  const started = performance.now();
  useLayoutEffect(() => {
    // the redraw ends after the frame that paints it (recharts measures and lays out its SVG after the commit)
    if (onDrawn) afterNextPaint(() => onDrawn(performance.now() - started));
  });
  const steps = Math.max(0, ...runs.map((r) => r.metrics.length));
  // the run the stacked charts show
  const stackedRun: SavedRun | undefined = current ?? runs[0];
  const longRun = steps > MAX_BARS ? steps : 0;
  if (runs.every((r) => r.metrics.length === 0 && (r.evaluations ?? []).length === 0)) {
    return (
      <div className="empty intro" data-testid="charts-empty">
        <p>
          <b>ReMA</b> trains two agents together with reinforcement learning: a{' '}
          <span className="tag-meta">meta-thinking agent</span> writes plans, a{' '}
          <span className="tag-reasoning">reasoning agent</span> follows them, and both are rewarded when the final
          answer is right (Wan et al., NeurIPS 2025).
        </p>
        <p>
          No steps yet. Press <b>Train</b> or <b>Step</b>, look at the agents in <b>Rollouts</b>, or overlay a saved run
          from <b>Runs</b>.
        </p>
      </div>
    );
  }
  return (
    <>
      {runs.length > 1 && (
        <ul className="run-legend" data-testid="run-legend" aria-label="runs on the charts">
          {runs.map((run, i) => (
            <li key={run.id}>
              <span className="swatch" style={{ background: runColors[i % runColors.length] }} />
              {run.name}
              {i === 0 && current?.id === run.id ? ' (current)' : ''}
            </li>
          ))}
          <li className="hint">line style = series (solid: first, dashed: second; hover a point for its name)</li>
        </ul>
      )}
      <div className="charts" data-testid="charts">
        {chartSpecs
          .filter((spec) => !spec.when || (stackedRun !== undefined && spec.when(stackedRun)))
          .map((spec) => (
            <ChartFigure
              key={spec.id}
              spec={spec}
              runs={runs}
              stackedRun={stackedRun ?? null}
              points={current?.metrics.length ?? 0}
              longRun={longRun}
              smoothing={smoothing}
              xAxis={xAxis}
            />
          ))}
        {stackedRun !== undefined && hasActions(stackedRun) && <ActionLevels metrics={stackedRun.metrics} />}
      </div>
    </>
  );
});
