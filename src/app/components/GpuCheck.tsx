// "Check this GPU": the GPU self-test (engine/gpu-check, in its own worker) on the browser's adapter, its lines
// (adapter, limits, features, subgroup sizes, pass / fail per kernel class, speed) and its JSON to copy into a bug
// report. It needs nothing loaded and runs beside training.
import { useState } from 'react';
import { gpuLines, checkLines, speedLine, verdictLine } from '../../engine/gpu-check/format.ts';
import type { GpuCheckReport } from '../../engine/gpu-check/report.ts';
import { runGpuCheckInWorker } from '../worker/gpu-check-client.ts';

type CheckState =
  | { kind: 'idle' }
  | { kind: 'running'; step: string }
  | { kind: 'done'; report: GpuCheckReport }
  | { kind: 'failed'; message: string };

export function GpuCheck() {
  const [state, setState] = useState<CheckState>({ kind: 'idle' });
  const start = () => {
    setState({ kind: 'running', step: 'starting' });
    runGpuCheckInWorker((step) => setState({ kind: 'running', step })).then(
      (report) => setState({ kind: 'done', report }),
      (e: unknown) => setState({ kind: 'failed', message: e instanceof Error ? e.message : String(e) }),
    );
  };
  return (
    <div className="gpu-check" data-testid="gpu-check">
      <div className="row">
        <button
          type="button"
          data-testid="gpu-check-run"
          disabled={state.kind === 'running'}
          onClick={start}
          title="runs small golden models on this browser's WebGPU adapter with the kernels training would use, compares them with float64 references, and times a matmul and a decode (under a minute)"
        >
          Check this GPU
        </button>
        {state.kind === 'running' && (
          <span className="hint" data-testid="gpu-check-step" role="status">
            {state.step}…
          </span>
        )}
      </div>
      {state.kind === 'failed' && (
        <div className="notice" data-testid="gpu-check-failed" role="status">
          GPU self-test could not run: {state.message}
        </div>
      )}
      {state.kind === 'done' && <GpuCheckResult report={state.report} />}
    </div>
  );
}

/** The verdict, a line per kernel class and the speed first; adapter details and the JSON folded below. */
function GpuCheckResult({ report }: { report: GpuCheckReport }) {
  const [copied, setCopied] = useState(false);
  const json = JSON.stringify(report, null, 2);
  const copy = () => {
    navigator.clipboard.writeText(json).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  const [adapter, ...details] = gpuLines(report);
  const speed = speedLine(report);
  return (
    <div data-testid="gpu-check-result">
      <div className={report.ok ? 'gpu-check-verdict ok' : 'gpu-check-verdict bad'} data-testid="gpu-check-verdict">
        {report.ok
          ? 'every kernel class matches the golden references'
          : `${report.checks.filter((c) => !c.ok).length} kernel class(es) FAILED`}
      </div>
      <pre className="gpu-check-lines" data-testid="gpu-check-lines">
        {[adapter, ...checkLines(report), ...(speed === null ? [] : [speed]), verdictLine(report)].join('\n')}
      </pre>
      <div className="row">
        <button type="button" data-testid="gpu-check-copy" onClick={copy}>
          Copy JSON
        </button>
        {copied && <span className="hint">copied</span>}
      </div>
      <details>
        <summary>limits, features, JSON</summary>
        <pre className="gpu-check-lines" data-testid="gpu-check-details">
          {details.join('\n')}
        </pre>
        <pre className="gpu-check-json" data-testid="gpu-check-json">
          {json}
        </pre>
      </details>
    </div>
  );
}
