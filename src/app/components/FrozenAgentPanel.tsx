// "Frozen agent (ONNX)": which agent is an ONNX model that answers but never trains (config.frozenAgent), where
// that model comes from (the shipped tiny-rema export, a local folder, or a Hugging Face repo in the
// onnx-community layout, downloaded with byte progress into the page's cache), and the VRP baseline: the same
// ONNX model alone, evaluated greedily on the held-out set. The model runs on onnxruntime-web in the worker.
import { useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { validateRepoId } from '../../engine/io/hub.ts';
import type { FrozenAgent } from '../../rl/config.ts';
import { filesByRelativePath, filesFromDirectoryHandle } from '../model/file-sources.ts';
import { modelLabel } from '../store/selectors.ts';
import { usePlayground } from '../store/react.ts';
import { DEFAULT_ONNX_SPEC } from '../worker/onnx-default.ts';
import { HintIcon } from './HintIcon.tsx';

const ROLE_NOTE =
  'Which agent is a frozen ONNX model: it answers in every episode but never trains (its tokens get no advantage, no loss, no optimiser step), while the other agent trains on the engine. The paper\'s single-turn alternating training (Algorithm 1) freezes one agent while the other trains; here it stays frozen for the whole run. Needs multi-turn or single-turn. Choosing it starts a new run (config knob "frozen agent").';
const SOURCE_NOTE =
  'A folder in the hub\'s onnx-community layout: config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx (a decoder exported with its KV cache) and, for large models, onnx/model.onnx_data. Runs on onnxruntime-web: the WebGPU execution provider when the page runs on WebGPU, the WASM one otherwise.';

const roleLabels: Record<FrozenAgent, string> = { none: 'none', meta: 'meta-thinking agent', reasoning: 'reasoning agent' };

export function FrozenAgentPanel() {
  const s = usePlayground(
    useShallow((st) => ({
      role: st.config.frozenAgent,
      roleError: st.configErrors.frozenAgent,
      frozenSpec: st.frozenSpec,
      onnx: st.frozen.onnx,
      evaluation: st.onnxEvaluation,
      status: st.status,
      setFrozenAgent: st.setFrozenAgent,
      setFrozenSource: st.setFrozenSource,
      evaluateOnnx: st.evaluateOnnx,
    })),
  );
  const [repo, setRepo] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const busy = s.status === 'loading' || s.status === 'training' || s.status === 'stepping' || s.status === 'evaluating';

  const pickFolder = async () => {
    const picker = (window as Window & { showDirectoryPicker?: () => Promise<FileSystemDirectoryHandle> }).showDirectoryPicker;
    if (!picker) {
      folderInput.current?.click();
      return;
    }
    try {
      const dir = await picker();
      setMessage(null);
      s.setFrozenSource({ kind: 'local', name: dir.name, files: await filesFromDirectoryHandle(dir) });
    } catch (e) {
      if ((e as Error).name !== 'AbortError') setMessage(`could not read the folder: ${(e as Error).message}`);
    }
  };

  const loadRepo = () => {
    try {
      validateRepoId(repo.trim());
      setMessage(null);
      s.setFrozenSource({ kind: 'hf', repo: repo.trim(), revision: 'main' });
    } catch (e) {
      setMessage((e as Error).message);
    }
  };

  return (
    <section className="frozen-panel" aria-label="frozen agent" data-testid="frozen-panel">
      <h3 className="panel-title">Frozen agent (ONNX)</h3>
      <div className="row">
        <label htmlFor="frozen-role">frozen agent</label>
        <HintIcon note={ROLE_NOTE} />
        <select id="frozen-role" data-testid="frozen-role" value={s.role} disabled={busy} onChange={(e) => s.setFrozenAgent(e.target.value as FrozenAgent)}>
          {(Object.keys(roleLabels) as FrozenAgent[]).map((r) => (
            <option key={r} value={r}>
              {roleLabels[r]}
            </option>
          ))}
        </select>
      </div>
      {s.roleError && <div className="knob-message" role="alert">{s.roleError}</div>}
      <div className="row">
        <span>ONNX model</span>
        <HintIcon note={SOURCE_NOTE} />
        <b data-testid="onnx-source">{modelLabel(s.frozenSpec)}</b>
      </div>
      <div className="row">
        <button type="button" disabled={busy} onClick={() => s.setFrozenSource(DEFAULT_ONNX_SPEC)} data-testid="onnx-shipped">
          Shipped tiny-rema
        </button>
        <button type="button" disabled={busy} onClick={pickFolder} data-testid="onnx-pick-folder">
          Local folder…
        </button>
        <input
          ref={folderInput}
          type="file"
          hidden
          data-testid="onnx-folder-input"
          {...({ webkitdirectory: '' } as object)}
          multiple
          onChange={(e) => {
            const files = filesByRelativePath(e.target.files ?? []);
            const first = e.target.files?.[0] as (File & { webkitRelativePath?: string }) | undefined;
            const name = first?.webkitRelativePath?.split('/')[0] || 'local folder';
            e.target.value = '';
            if (files.size > 0) s.setFrozenSource({ kind: 'local', name, files });
          }}
        />
      </div>
      <div className="row">
        <input
          type="text"
          placeholder="HF repo, e.g. onnx-community/Qwen2.5-0.5B-Instruct"
          value={repo}
          onChange={(e) => setRepo(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && loadRepo()}
          aria-label="Hugging Face ONNX repo id"
          data-testid="onnx-hf-repo"
        />
        <button type="button" disabled={busy || repo.trim() === ''} onClick={loadRepo} data-testid="onnx-hf-load">
          Load
        </button>
      </div>
      {message && <div className="knob-message" role="alert">{message}</div>}
      {s.onnx && (
        <div className="small" data-testid="onnx-loaded">
          loaded: {s.onnx.name}, {s.onnx.architecture}, {s.onnx.layers} layers · {s.onnx.runtime}
        </div>
      )}
      <div className="row">
        <button
          type="button"
          disabled={s.status !== 'idle'}
          onClick={s.evaluateOnnx}
          data-testid="evaluate-onnx"
          title="VRP baseline: the ONNX model alone answers the held-out problems with the plain chain-of-thought prompt (greedy), like Evaluate"
        >
          Evaluate ONNX model (VRP)
        </button>
      </div>
      {s.evaluation && (
        <div className="onnx-eval" data-testid="onnx-eval">
          VRP baseline (greedy): <b>{(s.evaluation.accuracy * 100).toFixed(1)}%</b> of {s.evaluation.n} held-out problems, mean reward{' '}
          {s.evaluation.reward_mean.toFixed(2)} · {s.evaluation.onnx.name} on {s.evaluation.onnx.runtime}
        </div>
      )}
    </section>
  );
}
