// "Frozen agent (ONNX)": which agent is an ONNX model that answers but never trains (config.frozenAgent), where
// that model comes from (the shipped tiny-rema export, a local folder, or a Hugging Face repo in the
// onnx-community layout, downloaded with byte progress into the page's cache), and the VRP baseline: the same
// ONNX model alone, evaluated greedily on the held-out set. The model runs on onnxruntime-web in the worker.
import { useShallow } from 'zustand/react/shallow';
import type { FrozenAgent } from '../../rl/config.ts';
import { modelLabel } from '../worker/model-label.ts';
import { usePlayground } from '../store/react.ts';
import { DEFAULT_ONNX_SPEC } from '../worker/onnx-default.ts';
import { HintIcon } from './HintIcon.tsx';
import { SourcePicker } from './SourcePicker.tsx';

const ROLE_NOTE =
  'Which agent is a frozen ONNX model: it answers in every episode but never trains (its tokens get no advantage, no loss, no optimiser step), while the other agent trains on the engine. The paper\'s single-turn alternating training (Algorithm 1) freezes one agent while the other trains; here it stays frozen for the whole run. Needs multi-turn or single-turn. Choosing it starts a new run (config knob "frozen agent").';
const SOURCE_NOTE =
  "A folder in the hub's onnx-community layout: config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx (a decoder exported with its KV cache) and, for large models, onnx/model.onnx_data. Runs on onnxruntime-web: the WebGPU execution provider when the page runs on WebGPU, the WASM one otherwise.";

const roleLabels: Record<FrozenAgent, string> = {
  none: 'none',
  meta: 'meta-thinking agent',
  reasoning: 'reasoning agent',
};

export function FrozenAgentPanel() {
  const s = usePlayground(
    useShallow((st) => ({
      role: st.config.frozenAgent,
      roleError: st.configErrors.frozenAgent,
      onnxModel: st.onnxModel,
      onnx: st.frozen.onnx,
      evaluation: st.onnxEvaluation,
      status: st.status,
      setFrozenAgent: st.setFrozenAgent,
      setOnnxModel: st.setOnnxModel,
      evaluateOnnx: st.evaluateOnnx,
    })),
  );
  const busy =
    s.status === 'loading' || s.status === 'training' || s.status === 'stepping' || s.status === 'evaluating';

  return (
    <section className="frozen-panel" aria-label="frozen agent" data-testid="frozen-panel">
      <h3 className="panel-title">Frozen agent (ONNX)</h3>
      <div className="row">
        <label htmlFor="frozen-role">frozen agent</label>
        <HintIcon note={ROLE_NOTE} />
        <select
          id="frozen-role"
          data-testid="frozen-role"
          value={s.role}
          disabled={busy}
          onChange={(e) => s.setFrozenAgent(e.target.value as FrozenAgent)}
        >
          {(Object.keys(roleLabels) as FrozenAgent[]).map((r) => (
            <option key={r} value={r}>
              {roleLabels[r]}
            </option>
          ))}
        </select>
      </div>
      {s.roleError && (
        <div className="knob-message" role="alert">
          {s.roleError}
        </div>
      )}
      <div className="row">
        <span>ONNX model</span>
        <HintIcon note={SOURCE_NOTE} />
        <b data-testid="onnx-source">{modelLabel(s.onnxModel)}</b>
      </div>
      <SourcePicker
        busy={busy}
        defaultLabel="Shipped tiny-rema"
        onDefault={() => s.setOnnxModel(DEFAULT_ONNX_SPEC)}
        onSource={s.setOnnxModel}
        repoPlaceholder="HF repo, e.g. onnx-community/Qwen2.5-0.5B-Instruct"
        repoLabel="Hugging Face ONNX repo id"
        testIds="onnx-"
        expectedFiles="an onnx-community folder: config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx"
      />
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
          VRP baseline (greedy): <b>{(s.evaluation.accuracy * 100).toFixed(1)}%</b> of {s.evaluation.n} held-out
          problems, mean reward {s.evaluation.reward_mean.toFixed(2)} · {s.evaluation.onnx.name} on{' '}
          {s.evaluation.onnx.runtime}
        </div>
      )}
    </section>
  );
}
