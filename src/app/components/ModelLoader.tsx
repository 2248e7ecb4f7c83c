// Choosing the weights: the embedded tiny model, a local folder or a Hugging Face repo id (SourcePicker;
// downloaded with byte progress, cached), and the backend preference. Loading replaces the session; errors appear in the page's error banner.
import { useShallow } from 'zustand/react/shallow';
import { TINY_MODEL_NAME } from '../../rl/presets.ts';
import { usePlayground } from '../store/react.ts';
import type { BackendPreference } from '../worker/protocol.ts';
import { SourcePicker } from './SourcePicker.tsx';

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
  const busy = s.status === 'loading' || s.status === 'training' || s.status === 'stepping';

  return (
    <section className="model-loader" aria-label="model">
      <SourcePicker
        busy={busy}
        defaultLabel="Tiny default"
        onDefault={() => s.loadModel({ kind: 'embedded', name: TINY_MODEL_NAME })}
        onSource={s.loadModel}
        repoPlaceholder="HF repo, e.g. HuggingFaceTB/SmolLM2-135M-Instruct"
        repoLabel="Hugging Face repo id"
        testIds=""
        expectedFiles="a Hugging Face model folder: config.json, tokenizer.json (and tokenizer_config.json) and the weights as *.safetensors (model.safetensors, or shards with model.safetensors.index.json)"
      />
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
