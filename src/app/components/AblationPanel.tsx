// Setting up an ablation in the sidebar: one or two config fields, their values and the seeds, on the page's
// current config and model; Run / Stop / Clear, and each run's progress. Compare protocols fills in the paper's
// Table 1 comparison (the protocol presets as the axis, 3 seeds) and starts it. The results are AblationResults.
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import {
  ablationFieldList,
  formatValueList,
  parseSeeds,
  parseValueList,
  type AblationField,
  type AblationSpec,
} from '../../rl/ablation.ts';
import { armLabel, COMPARE_PRESETS, PRESET_AXIS } from '../../rl/protocol-arms.ts';
import { usePlayground } from '../store/react.ts';

/** Table 1's protocols side by side: every protocol preset with the current config's budget, 3 seeds. */
const COMPARE_SPEC: AblationSpec = { axes: [{ field: PRESET_AXIS, values: [...COMPARE_PRESETS] }], seeds: [0, 1, 2] };

interface Draft {
  field1: string;
  values1: string;
  field2: string;
  values2: string;
  seeds: string;
}

function draftOf(spec: AblationSpec | null): Draft {
  const [a, b] = spec?.axes ?? [];
  return {
    field1: a?.field ?? 'ratio',
    values1: a ? formatValueList(a.values) : '',
    field2: b?.field ?? '',
    values2: b ? formatValueList(b.values) : '',
    seeds: spec ? spec.seeds.join(', ') : '0, 1',
  };
}

/** The draft as a spec, or the first problem with it. */
function specOf(d: Draft): AblationSpec | string {
  const axes = [{ field: d.field1, values: parseValueList(d.values1) }];
  if (d.field2) axes.push({ field: d.field2, values: parseValueList(d.values2) });
  for (const a of axes) if (a.values.length === 0) return `give values for ${a.field}`;
  try {
    return { axes, seeds: parseSeeds(d.seeds) };
  } catch (e) {
    return (e as Error).message;
  }
}

/** The fields of the config's field table an ablation can vary, grouped as the knobs are. */
function FieldOptions({ fields }: { fields: readonly AblationField[] }) {
  const groups = [...new Set(fields.map((f) => f.group))];
  return (
    <>
      {groups.map((g) => (
        <optgroup key={g} label={g}>
          {fields
            .filter((f) => f.group === g)
            .map((f) => (
              <option key={f.field} value={f.field}>{`${f.label} (${f.field})`}</option>
            ))}
        </optgroup>
      ))}
    </>
  );
}

export function AblationPanel() {
  const s = usePlayground(
    useShallow((st) => ({
      spec: st.ablationSpec,
      ablation: st.ablation,
      error: st.ablationError,
      setSpec: st.setAblationSpec,
      run: st.runAblation,
      stop: st.stopAblation,
      clear: st.clearAblation,
      status: st.status,
      wantsTraining: st.wantsTraining,
      base: st.config,
    })),
  );
  const [draft, setDraft] = useState<Draft>(() => draftOf(s.spec));
  const [problem, setProblem] = useState<string | null>(null);
  const fields = ablationFieldList();
  const running = s.ablation?.status === 'running';

  // a spec set from outside (a link, a restored ablation) shows in the form
  useEffect(
    () => setDraft((d) => (s.spec && JSON.stringify(specOf(d)) !== JSON.stringify(s.spec) ? draftOf(s.spec) : d)),
    [s.spec],
  );

  const edit = (change: Partial<Draft>) => {
    const d = { ...draft, ...change };
    setDraft(d);
    const spec = specOf(d);
    if (typeof spec === 'string') setProblem(spec);
    else {
      setProblem(null);
      s.setSpec(spec);
    }
  };

  const done = s.ablation?.runs.filter((r) => r.status === 'done').length ?? 0;
  const idle = s.status === 'idle' && !s.wantsTraining;
  const compareProtocols = () => {
    setDraft(draftOf(COMPARE_SPEC));
    setProblem(null);
    s.setSpec(COMPARE_SPEC);
    void s.run();
  };
  /** a labelled text input bound to one draft field (a plain function, not a component: the input keeps focus) */
  const textRow = (
    key: 'values1' | 'values2' | 'seeds',
    label: string,
    opts: { placeholder?: string; title?: string } = {},
  ) => (
    <div className="row">
      <label htmlFor={`ablation-${key}`} title={opts.title}>
        {label}
      </label>
      <input
        id={`ablation-${key}`}
        data-testid={`ablation-${key}`}
        value={draft[key]}
        disabled={running}
        placeholder={opts.placeholder}
        onChange={(e) => edit({ [key]: e.target.value })}
      />
    </div>
  );
  return (
    <section className="ablation-panel" aria-label="ablation" data-testid="ablation-panel">
      <div className="row">
        <label htmlFor="ablation-field1">field</label>
        <select
          id="ablation-field1"
          data-testid="ablation-field1"
          value={draft.field1}
          disabled={running}
          onChange={(e) => edit({ field1: e.target.value })}
        >
          <FieldOptions fields={fields} />
        </select>
      </div>
      {textRow('values1', 'values', { placeholder: 'token, turn-geometric' })}
      <div className="row">
        <label htmlFor="ablation-field2">2nd field</label>
        <select
          id="ablation-field2"
          data-testid="ablation-field2"
          value={draft.field2}
          disabled={running}
          onChange={(e) => edit({ field2: e.target.value })}
        >
          <option value="">none</option>
          <FieldOptions fields={fields.filter((f) => f.field !== draft.field1)} />
        </select>
      </div>
      {draft.field2 && textRow('values2', 'values')}
      {textRow('seeds', 'seeds', { title: 'comma-separated, or a range such as 0-2' })}
      <p className="hint">
        runs one after another on the current config and model (each for the config's steps); values are JSON or plain
        words, comma-separated
      </p>
      <div className="row">
        {running ? (
          <button type="button" data-testid="ablation-stop" onClick={s.stop}>
            Stop ablation
          </button>
        ) : (
          <button
            type="button"
            data-testid="ablation-run"
            disabled={problem !== null || s.spec === null || !idle}
            onClick={() => void s.run()}
          >
            {s.ablation && s.ablation.status !== 'done' && done > 0 ? 'Resume ablation' : 'Run ablation'}
          </button>
        )}
        {!running && (
          <button
            type="button"
            data-testid="compare-protocols"
            disabled={!idle}
            title="VRP (evaluated only), VRP_RL, MRP_RL and multi-turn ReMA on the current model, each with this config's steps, training problems and held-out evaluation; 3 seeds"
            onClick={compareProtocols}
          >
            Compare protocols
          </button>
        )}
        {s.ablation && !running && (
          <button type="button" data-testid="ablation-clear" onClick={() => void s.clear()}>
            Clear
          </button>
        )}
      </div>
      {(problem ?? s.error ?? s.ablation?.error) && (
        <p className="hint error" role="alert" data-testid="ablation-error">
          {problem ?? s.error ?? s.ablation?.error}
        </p>
      )}
      {s.ablation && (
        <ol className="ablation-runs" data-testid="ablation-runs" data-status={s.ablation.status}>
          {s.ablation.runs.map((r) => (
            <li key={r.key} data-testid="ablation-run-row" data-key={r.key} data-status={r.status}>
              {s.ablation && armLabel(r.point, r.label, s.ablation.base)} · seed {r.seed}: {r.status}
              {r.metrics.length > 0 ? ` (${r.metrics.length} steps)` : ''}
              {r.note ? ` · ${r.note}` : ''}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
