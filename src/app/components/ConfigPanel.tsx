// The knob panel: presets from the RL core, then every ExperimentConfig field grouped as in config/knobs.ts,
// each with a hover note (what it does, which paper setting). Edits are validated by the store; a rejected
// value shows the validator's message under the knob.
import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ExperimentConfig } from '../../rl/config.ts';
import { PRESET_NAMES } from '../../rl/presets.ts';
import { knobGroups, knobs, type Knob } from '../config/knobs.ts';
import { usePlayground } from '../store/react.ts';
import { HintIcon } from './HintIcon.tsx';

function KnobInput({ knob, value, onCommit }: { knob: Knob; value: unknown; onCommit: (v: unknown) => void }) {
  const c = knob.control;
  const id = `knob-${knob.key}`;
  switch (c.kind) {
    case 'select':
      return (
        <select id={id} value={String(value)} onChange={(e) => onCommit(e.target.value)}>
          {c.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
    case 'boolean':
      return <input id={id} type="checkbox" checked={value === true} onChange={(e) => onCommit(e.target.checked)} />;
    case 'number':
    case 'nullable-number': {
      const shown = value === null ? '' : String(value);
      const commit = (text: string) => {
        if (text === shown) return;
        if (c.kind === 'nullable-number' && text.trim() === '') onCommit(null);
        else onCommit(text.trim() === '' ? NaN : Number(text));
      };
      return (
        <input
          id={id}
          key={shown}
          type="number"
          defaultValue={shown}
          min={c.min}
          max={c.max}
          step={c.step}
          placeholder={c.kind === 'nullable-number' ? 'off' : undefined}
          onBlur={(e) => commit(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && commit((e.target as HTMLInputElement).value)}
        />
      );
    }
    case 'text':
    case 'list': {
      const shown = Array.isArray(value) ? value.join(',') : String(value);
      const commit = (text: string) => {
        if (text !== shown)
          onCommit(
            c.kind === 'list'
              ? text
                  .split(',')
                  .map((t) => t.trim())
                  .filter(Boolean)
              : text,
          );
      };
      return (
        <input
          id={id}
          key={shown}
          type="text"
          defaultValue={shown}
          onBlur={(e) => commit(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && commit((e.target as HTMLInputElement).value)}
        />
      );
    }
  }
}

function KnobRow({ knob }: { knob: Knob }) {
  const { value, error, setField } = usePlayground(
    useShallow((s) => ({
      value: s.config[knob.key as keyof ExperimentConfig],
      error: s.configErrors[knob.key],
      setField: s.setConfigField,
    })),
  );
  return (
    <div className={`knob ${error ? 'knob-error' : ''}`} data-knob={knob.key}>
      <label htmlFor={`knob-${knob.key}`} className="knob-label">
        {knob.label}
        <HintIcon note={knob.note} />
      </label>
      <KnobInput knob={knob} value={value} onCommit={(v) => setField(knob.key, v)} />
      {error && (
        <div className="knob-message" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

export function ConfigPanel() {
  const [advanced, setAdvanced] = useState(false);
  const { preset, applyPreset } = usePlayground(useShallow((s) => ({ preset: s.preset, applyPreset: s.applyPreset })));
  return (
    <section className="config-panel" aria-label="experiment config">
      <div className="knob preset-row">
        <label htmlFor="preset">preset</label>
        <select id="preset" data-testid="preset" value={preset} onChange={(e) => applyPreset(e.target.value)}>
          {PRESET_NAMES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <label className="advanced-toggle">
        <input type="checkbox" checked={advanced} onChange={(e) => setAdvanced(e.target.checked)} /> show all knobs
      </label>
      {knobGroups.map((group, i) => {
        const rows = knobs.filter((k) => k.group === group && (advanced || !k.advanced));
        if (rows.length === 0) return null;
        return (
          <details key={group} open={i < 4} className="knob-group">
            <summary>{group}</summary>
            {rows.map((k) => (
              <KnobRow key={k.key} knob={k} />
            ))}
          </details>
        );
      })}
    </section>
  );
}
