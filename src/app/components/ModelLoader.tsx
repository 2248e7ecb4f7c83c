// Choosing the weights: a known model of the offline catalog (by name, with its size, template and licence), the
// embedded tiny model, a local folder or any Hugging Face repo id (SourcePicker; downloaded with byte progress,
// cached), the backend preference and the base weights' precision (auto: f16 on shader-f16; f32 forces full
// precision); the planner sizes the chosen model with the current config before any
// download, and a calibration on the loaded model times a step. Loading replaces the session; errors appear in the
// page's error banner.
import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { findCatalogModel, resolveCatalogRepo } from '../../data/models/catalog.ts';
import { TINY_JUDGE_MODEL_NAME, TINY_MODEL_NAME } from '../../rl/presets.ts';
import { usePlayground } from '../store/react.ts';
import type { BackendPreference, WeightPrecision } from '../worker/protocol.ts';
import { AutoBackendLine } from './AutoBackendLine.tsx';
import { ModelCatalog } from './ModelCatalog.tsx';
import { CalibrationLine, Planner } from './Planner.tsx';
import { SourcePicker } from './SourcePicker.tsx';

export function ModelLoader() {
  const s = usePlayground(
    useShallow((st) => ({
      loadModel: st.loadModel,
      backendPreference: st.backendPreference,
      setBackendPreference: st.setBackendPreference,
      weightPrecision: st.weightPrecision,
      setWeightPrecision: st.setWeightPrecision,
      status: st.status,
      modelSpec: st.modelSpec,
      config: st.config,
      model: st.model,
      calibrate: st.calibrate,
      calibrating: st.calibrating,
    })),
  );
  const [chosen, setChosen] = useState(() =>
    s.config.modelSource === 'hub' ? (findCatalogModel(s.config.model)?.name ?? '') : '',
  );
  const busy = s.status === 'loading' || s.status === 'training' || s.status === 'stepping';

  return (
    <section className="model-loader" aria-label="model">
      <ModelCatalog
        chosen={chosen}
        onChoose={setChosen}
        busy={busy}
        onLoad={(m) => s.loadModel({ kind: 'hub', repo: m.repo, revision: 'main' })}
      />
      <SourcePicker
        busy={busy}
        defaultLabel="Tiny default"
        onDefault={() => s.loadModel({ kind: 'embedded', name: TINY_MODEL_NAME })}
        onSource={s.loadModel}
        resolveRepo={resolveCatalogRepo}
        repoPlaceholder="HF repo, e.g. HuggingFaceTB/SmolLM2-135M-Instruct"
        repoLabel="Hugging Face repo id"
        testIds=""
        expectedFiles="a Hugging Face model folder: config.json, tokenizer.json (and tokenizer_config.json) and the weights as *.safetensors (model.safetensors, or shards with model.safetensors.index.json)"
      />
      <div className="row">
        <button
          type="button"
          disabled={busy}
          data-testid="load-tiny-judge"
          title="the embedded tiny model after a judge-focused stage, for the tiny-judge preset"
          onClick={() => s.loadModel({ kind: 'embedded', name: TINY_JUDGE_MODEL_NAME })}
        >
          Tiny judge
        </button>
      </div>
      <div className="row">
        <label
          htmlFor="backend-pref"
          title="auto: the backend that measures fastest on the loaded model (WebGPU against the WebAssembly CPU backend, about 1 s, kept per GPU and model)"
        >
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
          <option value="wasm">WebAssembly (CPU)</option>
        </select>
        <span className="hint">reloads the model</span>
      </div>
      <div className="row">
        <label
          htmlFor="weights-pref"
          title="storage of the frozen base weights: auto keeps them (and the KV cache) as f16 on a WebGPU adapter with shader-f16, f32 elsewhere; f32 forces full precision (twice the memory, the same numbers as the CPU backend)"
        >
          weights
        </label>
        <select
          id="weights-pref"
          data-testid="weights-pref"
          value={s.weightPrecision}
          onChange={(e) => {
            s.setWeightPrecision(e.target.value as WeightPrecision);
            s.loadModel(s.modelSpec);
          }}
        >
          <option value="auto">auto (f16 on shader-f16)</option>
          <option value="f32">f32</option>
        </select>
        <span className="hint">reloads the model</span>
      </div>
      <AutoBackendLine />
      <details className="planner-details" data-testid="planner-details">
        <summary>Planner</summary>
        <Planner chosen={chosen} />
        <div className="row">
          <button
            type="button"
            data-testid="calibrate"
            disabled={busy || s.calibrating || s.model === null}
            onClick={s.calibrate}
            title="times one decode call, one scoring pass and one gradient chunk of the current config on the loaded model"
          >
            {s.calibrating ? 'Calibrating…' : 'Calibrate on the loaded model'}
          </button>
        </div>
        <CalibrationLine />
      </details>
    </section>
  );
}
