// "Explain this step": a modal that walks through one recorded GRPO update, one idea per screen (screens.ts),
// with the step's real numbers (the trainer's explain record, rl/train/explain.ts). Opened by the "Explain a step"
// button, the `e` key (presenter mode's handler calls the same openExplain) and the step list inside it; ← / →
// move between screens, Escape closes. The record shown is also on the dialog (data-record) for the browser test.
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { usePlayground } from '../../store/react.ts';
import { MathText } from '../MathText.tsx';
import './explain.css';
import { ScreenBody } from './Screens.tsx';
import { screens } from './screens.ts';

function typing(target: EventTarget | null): boolean {
  const t = target as HTMLElement | null;
  return !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
}

/** `e` opens the view outside presenter mode (presenter mode's own handler does it there) */
function useOpenKey(open: () => void, presenting: boolean, isOpen: boolean): void {
  useEffect(() => {
    if (presenting || isOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if ((e.key === 'e' || e.key === 'E') && !e.ctrlKey && !e.metaKey && !e.altKey && !typing(e.target)) open();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, presenting, isOpen]);
}

export function ExplainView() {
  const { explains, step, screen, openExplain, closeExplain, setScreen, presenting } = usePlayground(
    useShallow((s) => ({
      explains: s.explains,
      step: s.explainStep,
      screen: s.explainScreen,
      openExplain: s.openExplain,
      closeExplain: s.closeExplain,
      setScreen: s.setExplainScreen,
      presenting: s.presenting,
    })),
  );
  const [groupAt, setGroupAt] = useState(0);
  const record = step === null ? null : (explains.find((r) => r.step === step) ?? null);
  const list = record ? screens(record) : [];
  const last = list.length - 1;
  useOpenKey(openExplain, presenting, step !== null);

  useEffect(() => {
    if (step === null) return;
    // capture, so that Escape closes this view without also leaving presenter mode
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'Escape') closeExplain();
      else if (e.key === 'ArrowRight') setScreen(Math.min(screen + 1, Math.max(last, 0)));
      else if (e.key === 'ArrowLeft') setScreen(Math.max(screen - 1, 0));
      else return;
      e.preventDefault();
      e.stopImmediatePropagation();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [step, screen, last, closeExplain, setScreen]);

  if (step === null) return null;
  const group = record ? (record.groups[Math.min(groupAt, record.groups.length - 1)] ?? null) : null;
  const at = Math.min(screen, Math.max(last, 0));
  const current = list[at];
  return (
    <div className="explain-overlay" onClick={(e) => e.target === e.currentTarget && closeExplain()}>
      <div
        className={record ? 'explain-box' : 'explain-box explain-waiting'}
        role="dialog"
        aria-modal="true"
        aria-label="Explain this step"
        data-testid="explain"
        data-step={record?.step ?? ''}
        data-screen={current?.id ?? ''}
        data-record={record ? JSON.stringify(record) : ''}
      >
        <header className="explain-head">
          <h2>Explain step</h2>
          {explains.length > 0 && (
            <select
              value={record?.step ?? ''}
              onChange={(e) => openExplain(Number(e.target.value))}
              data-testid="explain-step-select"
              aria-label="training step to explain"
            >
              {explains.map((r) => (
                <option key={r.step} value={r.step}>
                  step {r.step}
                </option>
              ))}
            </select>
          )}
          {record && record.groups.length > 1 && (
            <select value={groupAt} onChange={(e) => setGroupAt(Number(e.target.value))} aria-label="problem group">
              {record.groups.map((g, i) => (
                <option key={g.group} value={i}>
                  problem {g.group + 1}
                </option>
              ))}
            </select>
          )}
          {current && (
            <span className="explain-count" data-testid="explain-position">
              {at + 1} / {list.length}
            </span>
          )}
          <button
            type="button"
            className="explain-close"
            onClick={closeExplain}
            data-testid="explain-close"
            aria-label="close"
          >
            ✕
          </button>
        </header>
        {!record || !group || !current ? (
          <p className="empty">
            {explains.length === 0
              ? 'Train a step first: each step records what its update did to one problem’s group.'
              : 'That step has no record (it trained no rows).'}
          </p>
        ) : (
          <>
            <h3 className="explain-title" data-testid="explain-title">
              {current.title}
            </h3>
            <p className="explain-caption" data-testid="explain-caption">
              {current.caption[0]}
              <br />
              {current.caption[1]}
            </p>
            <div className="explain-formula" data-testid="explain-formula">
              <MathText text={`$$${current.formula}$$`} />
            </div>
            <div className="explain-body">
              <ScreenBody id={current.id} record={record} group={group} />
            </div>
            <footer className="explain-foot">
              <button type="button" onClick={() => setScreen(at - 1)} disabled={at === 0} data-testid="explain-back">
                ← Back
              </button>
              <ol className="explain-dots">
                {list.map((s, i) => (
                  <li key={s.id}>
                    <button
                      type="button"
                      className={i === at ? 'active' : ''}
                      onClick={() => setScreen(i)}
                      title={s.title}
                      aria-label={s.title}
                    />
                  </li>
                ))}
              </ol>
              <button
                type="button"
                className="primary"
                onClick={() => setScreen(at + 1)}
                disabled={at === last}
                data-testid="explain-next"
              >
                Next →
              </button>
            </footer>
          </>
        )}
      </div>
    </div>
  );
}
