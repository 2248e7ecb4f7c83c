// Under the backend menu: what "auto" measured on the loaded model and which backend it kept ("auto -> wasm:
// 0.45 ms/token, 1.2 s/step (webgpu ...; measured 2.3 s, cached)"), or, on a first visit until the measurement
// (queued after the first rollouts) has chosen, the backend the model runs on for now; and a button that measures
// again (the measurement is kept per adapter and model, so a reload reuses it).
import { useShallow } from 'zustand/react/shallow';
import { usePlayground } from '../store/react.ts';

export function AutoBackendLine() {
  const s = usePlayground(
    useShallow((st) => ({
      preference: st.backendPreference,
      auto: st.backend?.auto ?? null,
      pending: st.backend?.autoPending ?? null,
      status: st.status,
      remeasure: st.remeasureBackend,
    })),
  );
  if (s.preference !== 'auto') return null;
  const busy = s.status === 'loading' || s.status === 'training' || s.status === 'stepping';
  return (
    <div className="row auto-backend">
      <span className="hint" data-testid="auto-backend" title={s.auto?.choice.reason ?? ''}>
        {s.auto
          ? s.auto.line
          : s.pending
            ? s.pending.line
            : s.status === 'loading'
              ? 'auto: the backends are measured on the model after its first rollout…'
              : ''}
      </span>
      {(s.auto || (s.pending && !s.pending.measuring)) && (
        <button
          type="button"
          data-testid="remeasure-backend"
          disabled={busy}
          onClick={s.remeasure}
          title="load the model again and measure every backend on it (reloads the model: a new run)"
        >
          Re-measure
        </button>
      )}
    </div>
  );
}
