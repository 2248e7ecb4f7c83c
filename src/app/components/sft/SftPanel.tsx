// The page's SFT mode in the sidebar: choose the chats (the tiny task's meta-thinking dialogues or CoT answers, or a
// chat JSONL file in the OpenAI or alpaca layout), the steps and the learning rate, run SFT in the worker with the
// loss curve drawn live, then "Start RL from this model": the RL run restarts from the SFT'd weights in this tab.
import { useShallow } from 'zustand/react/shallow';
import { usePlayground } from '../../store/react.ts';
import type { SftState } from '../../store/types.ts';
import { SftLossChart } from './SftLossChart.tsx';

const DATA: readonly { value: SftState['data']; label: string }[] = [
  { value: 'tiny-meta', label: 'meta-thinking dialogues (tiny task)' },
  { value: 'tiny-cot', label: 'chain-of-thought answers (tiny task)' },
  { value: 'file', label: 'a chat JSONL file' },
];

export function SftPanel() {
  const s = usePlayground(
    useShallow((st) => ({
      sft: st.sft,
      set: st.setSftOptions,
      run: st.runSft,
      stop: st.stopSft,
      adopt: st.adoptSft,
      status: st.status,
      model: st.model,
    })),
  );
  const { sft } = s;
  const busy = sft.running || s.status === 'loading' || s.status === 'failed';
  const last = sft.losses.at(-1);
  const pickFile = async (file: File | undefined) => {
    if (file) s.set({ data: 'file', file: { name: file.name, text: await file.text() } });
  };
  return (
    <div className="sft-panel" data-testid="sft-panel">
      <fieldset disabled={busy}>
        {DATA.map((d) => (
          <label key={d.value} className="sft-choice">
            <input
              type="radio"
              name="sft-data"
              value={d.value}
              checked={sft.data === d.value}
              onChange={() => s.set({ data: d.value })}
              data-testid={`sft-data-${d.value}`}
            />
            {d.label}
          </label>
        ))}
        {sft.data === 'file' && (
          <input
            type="file"
            accept=".jsonl,.json,application/jsonl"
            onChange={(e) => void pickFile(e.target.files?.[0])}
            data-testid="sft-file"
          />
        )}
        {sft.data === 'file' && sft.file && <div className="hint">{sft.file.name}</div>}
        <label>
          steps{' '}
          <input
            type="number"
            min={1}
            value={sft.steps}
            onChange={(e) => s.set({ steps: Math.max(1, Math.floor(Number(e.target.value) || 1)) })}
            data-testid="sft-steps"
          />
        </label>
        <label>
          lr{' '}
          <input
            type="number"
            step="any"
            min={0}
            value={sft.lr}
            onChange={(e) => s.set({ lr: Number(e.target.value) })}
            data-testid="sft-lr"
          />
        </label>
      </fieldset>
      <div className="buttons">
        <button type="button" onClick={s.run} disabled={busy || s.status !== 'idle'} data-testid="sft-run">
          Run SFT
        </button>
        <button type="button" onClick={s.stop} disabled={!sft.running} data-testid="sft-stop">
          Stop
        </button>
        <button
          type="button"
          onClick={s.adopt}
          disabled={!sft.done || sft.running || s.status !== 'idle'}
          data-testid="sft-adopt"
          title="the SFT'd weights become the model the RL run starts from (a new run at step 0)"
        >
          Start RL from this model
        </button>
      </div>
      {(sft.running || sft.losses.length > 0) && (
        <>
          <SftLossChart losses={sft.losses} total={sft.total} />
          <div className="hint" data-testid="sft-progress">
            step {last?.step ?? 0}/{sft.total}
            {last ? `: loss ${last.loss.toFixed(4)}` : ''}
          </div>
        </>
      )}
      {sft.done && (
        <div
          className="hint"
          data-testid="sft-done"
          data-checksum={sft.done.checksum}
          data-base-checksum={sft.done.baseChecksum}
        >
          {sft.done.steps} steps on {sft.done.chats} chats; weights {sft.done.checksum} (model before SFT{' '}
          {sft.done.baseChecksum})
        </div>
      )}
      {sft.adopted && (
        <div className="hint" data-testid="sft-adopted" data-checksum={sft.adopted}>
          RL now starts from {s.model?.name ?? 'the SFT model'} (weights {sft.adopted})
        </div>
      )}
      {sft.error && (
        <div className="error" role="alert" data-testid="sft-error">
          {sft.error}
        </div>
      )}
    </div>
  );
}
