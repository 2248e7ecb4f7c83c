// Top bar: what runs where. The backend (WebGPU adapter and f16 support, or the CPU backend with the reason),
// the model, the frozen ONNX agent and its onnxruntime-web execution provider, and the dataset, so a screenshot
// always says what produced the curves.
import { useShallow } from 'zustand/react/shallow';
import { modelLabel } from '../worker/model-label.ts';
import { usePlayground } from '../store/react.ts';
import type { BackendInfo } from '../worker/protocol.ts';

/** How WebGPU stores the weights: from the trainer once it is built ("f16 base, f16 KV cache"), else what the
 *  adapter allows. */
function storageText(backend: BackendInfo): string {
  const s = backend.storage;
  if (!s) return backend.f16 ? 'f16' : 'f32 (no shader-f16)';
  return `${s.base} base, ${s.kvCache} KV cache${s.base === 'f32' && !backend.f16 ? ' (no shader-f16)' : ''}`;
}

function formatParams(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)}B` : n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : `${(n / 1e3).toFixed(0)}k`;
}

export function Header() {
  const { backend, model, dataset, modelSpec, status, frozen } = usePlayground(
    useShallow((s) => ({
      backend: s.backend,
      model: s.model,
      dataset: s.dataset,
      modelSpec: s.modelSpec,
      status: s.status,
      frozen: s.frozen,
    })),
  );
  const frozenOnnx = frozen.role !== null ? frozen.onnx : null;
  return (
    <header className="header">
      <h1>ReMA Playground</h1>
      <span className="tagline">meta-thinking + reasoning agents, trained with RL in your browser</span>
      <div className="badges">
        <span className="badge" data-testid="backend" title={backend?.cpuReason ?? backend?.description ?? ''}>
          {backend === null
            ? status === 'failed'
              ? 'backend: none'
              : 'backend: starting…'
            : backend.kind === 'webgpu'
              ? `WebGPU · ${backend.description} · ${storageText(backend)}`
              : `CPU backend · ${backend.description}`}
        </span>
        <span className="badge" data-testid="model">
          model:{' '}
          {model
            ? `${model.name} (${model.architecture}, ${formatParams(model.parameters)} params, ${model.layers} layers)`
            : modelLabel(modelSpec)}
        </span>
        {frozen.role !== null && frozenOnnx && (
          <span className="badge badge-frozen" data-testid="frozen-badge" title="this agent answers but never trains">
            frozen {frozen.role === 'meta' ? 'meta-thinking' : 'reasoning'} agent: {frozenOnnx.name} ·{' '}
            {frozenOnnx.runtime}
          </span>
        )}
        {dataset && (
          <span className="badge" data-testid="dataset">
            data: {dataset.name} ({dataset.train} train / {dataset.heldOut} held-out)
          </span>
        )}
      </div>
      {backend && backend.kind !== 'webgpu' && backend.cpuReason && (
        <div className="notice" data-testid="cpu-notice" role="status">
          Running on the CPU backend: {backend.cpuReason}
        </div>
      )}
      {frozen.onnx?.notice && (
        <div className="notice" data-testid="onnx-notice" role="status">
          ONNX model: {frozen.onnx.notice}
        </div>
      )}
    </header>
  );
}
