// The three places a model folder can come from, as one row of controls shared by the model panel and the frozen
// agent's ONNX panel: the shipped default, a local folder (File System Access API where the browser has it, a
// folder <input> otherwise) and a Hugging Face repo id (validated before anything downloads).
import { useRef, useState } from 'react';
import { validateRepoId } from '../../engine/io/hub.ts';
import { filesByRelativePath, filesFromDirectoryHandle } from '../model/file-sources.ts';
import type { ModelSpec } from '../worker/protocol.ts';

export interface SourcePickerProps {
  busy: boolean;
  /** the first button: the shipped, offline default */
  defaultLabel: string;
  onDefault(): void;
  /** a picked folder or a valid repo id */
  onSource(spec: Exclude<ModelSpec, { kind: 'embedded' }>): void;
  repoPlaceholder: string;
  repoLabel: string;
  /** prefix of the controls' test ids ("" for the model panel, "onnx-" for the frozen agent's) */
  testIds: '' | 'onnx-';
  /** what a folder must hold, for the message when the picked one is empty, e.g. "config.json, tokenizer.json and *.safetensors weights" */
  expectedFiles: string;
  /** turns typed text into a repo id before it is checked (the model panel: a catalog name becomes its repo) */
  resolveRepo?: (text: string) => string;
}

/** The message for a picked folder with no files in it (nothing to load), naming what was expected. */
export function emptyFolderMessage(name: string, expectedFiles: string): string {
  return `the folder "${name}" is empty (or the browser gave no files from it): expected ${expectedFiles}`;
}

export function SourcePicker(p: SourcePickerProps) {
  const [repo, setRepo] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  const pickFolder = async () => {
    const picker = (window as Window & { showDirectoryPicker?: () => Promise<FileSystemDirectoryHandle> })
      .showDirectoryPicker;
    if (!picker) {
      folderInput.current?.click();
      return;
    }
    try {
      const dir = await picker();
      const files = await filesFromDirectoryHandle(dir);
      if (files.size === 0) {
        setMessage(emptyFolderMessage(dir.name, p.expectedFiles));
        return;
      }
      setMessage(null);
      p.onSource({ kind: 'local', name: dir.name, files });
    } catch (e) {
      if ((e as Error).name !== 'AbortError') setMessage(`could not read the folder: ${(e as Error).message}`);
    }
  };

  const loadRepo = () => {
    try {
      const id = p.resolveRepo ? p.resolveRepo(repo.trim()) : repo.trim();
      validateRepoId(id);
      setMessage(null);
      p.onSource({ kind: 'hub', repo: id, revision: 'main' });
    } catch (e) {
      setMessage((e as Error).message);
    }
  };

  const id = (name: string) => `${p.testIds}${name}`;
  return (
    <>
      <div className="row">
        <button
          type="button"
          disabled={p.busy}
          onClick={p.onDefault}
          data-testid={p.testIds === '' ? undefined : id('shipped')}
        >
          {p.defaultLabel}
        </button>
        <button type="button" disabled={p.busy} onClick={pickFolder} data-testid={id('pick-folder')}>
          Local folder…
        </button>
        <input
          ref={folderInput}
          type="file"
          hidden
          data-testid={id('folder-input')}
          {...({ webkitdirectory: '' } as object)}
          multiple
          onChange={(e) => {
            const files = filesByRelativePath(e.target.files ?? []);
            const first = e.target.files?.[0] as (File & { webkitRelativePath?: string }) | undefined;
            const name = first?.webkitRelativePath?.split('/')[0] || 'local folder';
            e.target.value = '';
            if (files.size === 0) {
              setMessage(emptyFolderMessage(name, p.expectedFiles));
              return;
            }
            setMessage(null);
            p.onSource({ kind: 'local', name, files });
          }}
        />
      </div>
      <div className="row">
        <input
          type="text"
          placeholder={p.repoPlaceholder}
          value={repo}
          onChange={(e) => setRepo(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && loadRepo()}
          aria-label={p.repoLabel}
          data-testid={id('hf-repo')}
        />
        <button type="button" disabled={p.busy || repo.trim() === ''} onClick={loadRepo} data-testid={id('hf-load')}>
          Load
        </button>
      </div>
      {message && (
        <div className="knob-message" role="alert" data-testid={id('source-message')}>
          {message}
        </div>
      )}
    </>
  );
}
