// Train / Pause / Step / Reset / Evaluate, and one status line saying what the worker is doing right now.
import { useShallow } from 'zustand/react/shallow';
import { usePlayground } from '../store/react.ts';

function formatBytes(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e3).toFixed(0)} kB`;
}

export function Controls() {
  const s = usePlayground(
    useShallow((st) => ({
      status: st.status,
      wantsTraining: st.wantsTraining,
      activity: st.activity,
      progress: st.progress,
      steps: st.currentRun?.metrics.length ?? 0,
      lastStep: st.currentRun?.metrics.at(-1)?.step ?? null,
      maxSteps: st.config.steps,
      configDirty: st.configDirty,
      train: st.train,
      pause: st.pause,
      step: st.step,
      reset: st.reset,
      evaluate: st.evaluate,
      ablationRunning: st.ablation?.status === 'running',
    })),
  );
  // an ablation drives the worker itself (Pause stops it); the other buttons wait until it is stopped
  const ready = s.status === 'idle' && !s.ablationRunning;
  // Train is also open during an evaluation (the start-up baseline included): the worker queues the steps after it
  const canTrain = ready || s.status === 'evaluating';
  const busy = s.status === 'training' || s.status === 'stepping' || s.status === 'evaluating';
  const statusText =
    s.status === 'loading'
      ? s.progress
        ? `loading ${s.progress.part === 'ONNX model' ? 'ONNX model: ' : ''}${s.progress.file ?? s.progress.part}${s.progress.total ? ` ${formatBytes(s.progress.loaded)} / ${formatBytes(s.progress.total)}` : ''}`
        : 'loading the model…'
      : s.status === 'failed'
        ? 'stopped by an error'
        : busy
          ? `${s.status === 'training' && !s.wantsTraining ? 'pausing after this step' : s.status === 'evaluating' && s.wantsTraining ? 'evaluating (training starts after it)' : s.status}${s.activity ? `: ${s.activity}` : ''}`
          : (s.activity ?? 'ready');
  return (
    <section className="controls" aria-label="training controls">
      <div className="buttons">
        {s.wantsTraining ? (
          <button type="button" className="primary" onClick={s.pause} data-testid="pause">
            ❚❚ Pause
          </button>
        ) : (
          <button type="button" className="primary" onClick={s.train} disabled={!canTrain} data-testid="train">
            ▶ Train
          </button>
        )}
        <button type="button" onClick={s.step} disabled={!ready} data-testid="step" title="run exactly one RL update">
          Step
        </button>
        <button
          type="button"
          onClick={s.reset}
          disabled={s.status === 'loading' || s.status === 'failed' || s.ablationRunning}
          data-testid="reset"
          title="start a new run from the model's weights with the current config"
        >
          Reset
        </button>
        <button
          type="button"
          onClick={s.evaluate}
          disabled={!ready}
          data-testid="evaluate"
          title="greedy accuracy on the held-out set with the current weights"
        >
          Evaluate
        </button>
      </div>
      <div className="status-line" data-testid="status" data-status={s.status}>
        <span className={`dot dot-${s.status}`} /> {statusText}
        <span className="step-count" data-testid="step-count">
          step {s.lastStep ?? 0} / {s.maxSteps}
        </span>
      </div>
      {s.progress?.total ? (
        <progress value={s.progress.loaded} max={s.progress.total} data-testid="load-progress" />
      ) : null}
      {s.configDirty && <div className="hint">Config changed: press Reset to start a run with it.</div>}
    </section>
  );
}
