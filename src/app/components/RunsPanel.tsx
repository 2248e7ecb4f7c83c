// Saved runs: every run of this browser (IndexedDB) plus imported ones. Overlay runs on the charts, export a
// run as JSON or CSV, the trained adapter in PEFT layout (zip), the config as verl YAML; import a run JSON or a
// CLI metrics.jsonl.
import { zipSync } from 'fflate';
import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { downloadFile } from '../io/download.ts';
import { fileStem, metricsToCsv, runToJson } from '../io/run-export.ts';
import { exportVerl } from '../../rl/export-verl.ts';
import type { SavedRun } from '../persist/run-types.ts';
import { usePlayground } from '../store/react.ts';
import { runColors } from './charts/Charts.tsx';

function lastValue(run: SavedRun, key: 'reward_mean' | 'accuracy'): string {
  const v = run.metrics.at(-1)?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v.toFixed(2) : '–';
}

export function RunsPanel() {
  const s = usePlayground(
    useShallow((st) => ({
      runs: st.runs,
      currentId: st.currentRun?.id,
      overlayIds: st.overlayIds,
      toggleOverlay: st.toggleOverlay,
      inspectRun: st.inspectRun,
      deleteRun: st.deleteRun,
      importRun: st.importRun,
      exportLora: st.exportLora,
      config: st.config,
      status: st.status,
    })),
  );
  const [message, setMessage] = useState<string | null>(null);

  const downloadLora = async () => {
    try {
      const files = await s.exportLora();
      downloadFile('rema-adapter-peft.zip', zipSync(files) as BlobPart, 'application/zip');
      setMessage(`adapter exported: ${Object.keys(files).join(', ')}`);
    } catch (e) {
      setMessage(`adapter export failed: ${(e as Error).message}`);
    }
  };
  const exportYaml = () => {
    const { yaml, notPorted } = exportVerl(s.config);
    downloadFile(`${s.config.name || 'config'}.verl.yaml`, yaml, 'text/yaml');
    setMessage(notPorted.length ? `verl YAML exported; not ported: ${notPorted.join('; ')}` : 'verl YAML exported');
  };

  return (
    <div className="runs-panel">
      <div className="row">
        <label className="file-button">
          Import run JSON / metrics.jsonl
          <input
            type="file"
            accept=".json,.jsonl,application/json"
            data-testid="import-run"
            onChange={async (e) => {
              const file = e.target.files?.[0];
              if (file) await s.importRun(await file.text(), file.name);
              e.target.value = '';
            }}
          />
        </label>
        <button
          type="button"
          onClick={downloadLora}
          disabled={s.status === 'loading' || s.status === 'failed'}
          data-testid="export-adapter"
        >
          Export adapter (PEFT)
        </button>
        <button type="button" onClick={exportYaml} data-testid="export-yaml">
          Config as verl YAML
        </button>
      </div>
      {message && (
        <div className="hint" role="status">
          {message}
        </div>
      )}
      {s.runs.length === 0 ? (
        <p className="empty">No saved runs yet.</p>
      ) : (
        <table className="runs-table" data-testid="runs-table">
          <thead>
            <tr>
              <th>overlay</th>
              <th>run</th>
              <th>model / backend</th>
              <th>status</th>
              <th>steps</th>
              <th>reward</th>
              <th>accuracy</th>
              <th>view / export</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {s.runs.map((run) => {
              const overlayIndex = s.overlayIds.indexOf(run.id);
              const isCurrent = run.id === s.currentId;
              return (
                <tr key={run.id} data-testid="run-row" data-run-id={run.id}>
                  <td>
                    <input
                      type="checkbox"
                      disabled={isCurrent}
                      checked={isCurrent || overlayIndex >= 0}
                      onChange={() => s.toggleOverlay(run.id)}
                      aria-label={`overlay ${run.name}`}
                    />
                    {overlayIndex >= 0 && (
                      <span
                        className="swatch"
                        style={{ background: runColors[(overlayIndex + (s.currentId ? 1 : 0)) % runColors.length] }}
                      />
                    )}
                  </td>
                  <td>
                    {run.name}
                    {isCurrent && <b> (current)</b>}
                  </td>
                  <td className="small">
                    {run.model} · {run.backend}
                    {run.frozenModel && <div data-testid="run-frozen">frozen {run.frozenModel}</div>}
                  </td>
                  <td>{run.status}</td>
                  <td>{run.metrics.length}</td>
                  <td>{lastValue(run, 'reward_mean')}</td>
                  <td>{lastValue(run, 'accuracy')}</td>
                  <td>
                    <button
                      type="button"
                      data-testid="inspect-run"
                      title="show this run's last rollouts"
                      onClick={() => s.inspectRun(isCurrent ? null : run.id)}
                    >
                      rollouts
                    </button>
                    <button
                      type="button"
                      data-testid="export-json"
                      onClick={() => downloadFile(`${fileStem(run)}.json`, runToJson(run), 'application/json')}
                    >
                      JSON
                    </button>
                    <button
                      type="button"
                      data-testid="export-csv"
                      onClick={() => downloadFile(`${fileStem(run)}.csv`, metricsToCsv(run.metrics), 'text/csv')}
                    >
                      CSV
                    </button>
                  </td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => s.deleteRun(run.id)}
                      aria-label={`delete ${run.name}`}
                      disabled={isCurrent}
                    >
                      ✕
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
