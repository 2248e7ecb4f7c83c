// Choosing the weights: the embedded tiny model, a local folder (File System Access API where the browser has
// it, a folder <input> otherwise) or a Hugging Face repo id (downloaded with byte progress, cached), and the
// backend preference. Loading replaces the session; errors appear in the page's error banner.
import { useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { TINY_MODEL_NAME } from '../../rl/presets.ts';
import { validateRepoId } from '../../engine/io/hub.ts';
import { filesByRelativePath, filesFromDirectoryHandle } from '../model/file-sources.ts';
import { usePlayground } from '../store/react.ts';
import type { BackendPreference } from '../worker/protocol.ts';

export function ModelLoader() {
  const s = usePlayground(
    useShallow((st) => ({
      loadModel: st.loadModel,
      backendPreference: st.backendPreference,
      setBackendPreference: st.setBackendPreference,
      status: st.status,
      modelSpec: st.modelSpec,
    })),
  );
  const [repo, setRepo] = useState('');
  const [repoError, setRepoError] = useState<string | null>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const busy = s.status === 'loading' || s.status === 'training' || s.status === 'stepping';

  const pickFolder = async () => {
    const picker = (window as Window & { showDirectoryPicker?: () => Promise<FileSystemDirectoryHandle> }).showDirectoryPicker;
    if (!picker) {
      folderInput.current?.click();
      return;
    }
    try {
      const dir = await picker();
      s.loadModel({ kind: 'local', name: dir.name, files: await filesFromDirectoryHandle(dir) });
    } catch (e) {
      if ((e as Error).name !== 'AbortError') setRepoError(`could not read the folder: ${(e as Error).message}`);
    }
  };

  const loadRepo = () => {
    try {
      validateRepoId(repo.trim());
      s.loadModel({ kind: 'hf', repo: repo.trim(), revision: 'main' });
      setRepoError(null);
    } catch (e) {
      setRepoError((e as Error).message);
    }
  };

  return (
    <section className="model-loader" aria-label="model">
      <div className="row">
        <button type="button" disabled={busy} onClick={() => s.loadModel({ kind: 'embedded', name: TINY_MODEL_NAME })}>
          Tiny default
        </button>
        <button type="button" disabled={busy} onClick={pickFolder} data-testid="pick-folder">
          Local folder…
        </button>
        <input
          ref={folderInput}
          type="file"
          hidden
          data-testid="folder-input"
          {...({ webkitdirectory: '' } as object)}
          multiple
          onChange={(e) => {
            const files = filesByRelativePath(e.target.files ?? []);
            const first = e.target.files?.[0] as (File & { webkitRelativePath?: string }) | undefined;
            const name = first?.webkitRelativePath?.split('/')[0] || 'local folder';
            if (files.size > 0) s.loadModel({ kind: 'local', name, files });
          }}
        />
      </div>
      <div className="row">
        <input
          type="text"
          placeholder="HF repo, e.g. HuggingFaceTB/SmolLM2-135M-Instruct"
          value={repo}
          onChange={(e) => setRepo(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && loadRepo()}
          aria-label="Hugging Face repo id"
          data-testid="hf-repo"
        />
        <button type="button" disabled={busy || repo.trim() === ''} onClick={loadRepo} data-testid="hf-load">
          Load
        </button>
      </div>
      {repoError && <div className="knob-message" role="alert">{repoError}</div>}
      <div className="row">
        <label htmlFor="backend-pref" title="auto: WebGPU on a hardware GPU, the CPU backend when WebGPU is missing or software-only (faster there)">
          backend
        </label>
        <select
          id="backend-pref"
          data-testid="backend-pref"
          value={s.backendPreference}
          onChange={(e) => {
            s.setBackendPreference(e.target.value as BackendPreference);
            s.loadModel(s.modelSpec);
          }}
        >
          <option value="auto">auto</option>
          <option value="webgpu">WebGPU</option>
          <option value="cpu">CPU</option>
        </select>
        <span className="hint">reloads the model</span>
      </div>
    </section>
  );
}
