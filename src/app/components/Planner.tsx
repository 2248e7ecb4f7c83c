// The planner in the page (src/rl/plan.ts, the same plan as `rema plan`): before anything is downloaded, what the
// chosen model with the current config costs on the page's backend: parameters, bytes by category, whether it
// fits (the WASM backend's 4 GiB; on WebGPU the GPU memory the user gives, since WebGPU does not expose it, and
// the adapter's largest-buffer limit against the largest weight matrix, and the tensors kernels bind whole against
// the adapter's maxStorageBufferBindingSize: rl/plan-bindings.ts), and the nearest config that fits.
import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { findCatalogModel } from '../../data/models/catalog.ts';
import { formatBytes, parseBytes } from '../../engine/io/model-size.ts';
import type { WeightDtype } from '../../engine/plan/memory.ts';
import type { BackendKind } from '../../engine/backend.ts';
import { modelConfigFor, planConfig, type Plan } from '../../rl/plan.ts';
import { usePlayground } from '../store/react.ts';

/** The adapter's buffer limits, read once on the page's thread (null without WebGPU). */
function useGpuLimits(): { maxBufferSize: number; maxStorageBufferBindingSize: number; name: string } | null {
  const [limits, setLimits] = useState<{
    maxBufferSize: number;
    maxStorageBufferBindingSize: number;
    name: string;
  } | null>(null);
  useEffect(() => {
    const gpu = typeof navigator !== 'undefined' ? (navigator as Navigator & { gpu?: GPU }).gpu : undefined;
    if (!gpu) return;
    let live = true;
    gpu.requestAdapter().then(
      (a) => {
        if (live && a)
          setLimits({
            maxBufferSize: a.limits.maxBufferSize,
            maxStorageBufferBindingSize: a.limits.maxStorageBufferBindingSize,
            name: `${a.info.vendor} ${a.info.architecture}`.trim(),
          });
      },
      () => {},
    );
    return () => {
      live = false;
    };
  }, []);
  return limits;
}

export function Planner({ chosen }: { chosen: string }) {
  const s = usePlayground(
    useShallow((st) => ({ config: st.config, backend: st.backend, backendPreference: st.backendPreference })),
  );
  const [gpuMemory, setGpuMemory] = useState('');
  const [dtype, setDtype] = useState<WeightDtype>('f32');
  const gpu = useGpuLimits();
  const backend: BackendKind = s.backend
    ? s.backend.kind === 'cpu'
      ? 'cpu'
      : s.backend.kind
    : s.backendPreference === 'webgpu'
      ? 'webgpu'
      : 'wasm';
  const entry = findCatalogModel(chosen) ?? (s.config.modelSource === 'hub' ? findCatalogModel(s.config.model) : null);

  const result = useMemo((): { plan: Plan; largest: number } | { error: string } | null => {
    if (!entry) return null;
    try {
      const config = { ...s.config, modelSource: 'hub' as const, model: entry.repo };
      const model = modelConfigFor(config);
      const memoryBytes = backend === 'webgpu' ? parseBytes(gpuMemory) : null;
      const plan = planConfig(config, model, {
        backend,
        weightDtype: backend === 'cpu' ? 'f32' : dtype,
        ...(memoryBytes ? { memoryBytes } : {}),
        ...(gpu ? { bindingBytes: gpu.maxStorageBufferBindingSize } : {}),
      });
      const bytesPerWeight = plan.weightDtype === 'f32' ? 4 : 2;
      const largest = model.config.vocabSize * model.config.hiddenSize * bytesPerWeight;
      return { plan, largest };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }, [entry, s.config, backend, gpuMemory, dtype, gpu]);

  if (!entry)
    return (
      <p className="hint" data-testid="planner-empty">
        choose a known model to plan it before downloading
      </p>
    );
  if (!result || 'error' in result)
    return (
      <p className="hint error" data-testid="planner-error">
        {result && 'error' in result ? result.error : ''}
      </p>
    );
  const { plan, largest } = result;
  const b = plan.bytes;
  const bufferTooBig = backend === 'webgpu' && gpu !== null && largest > gpu.maxStorageBufferBindingSize;
  return (
    <section className="planner" aria-label="planner" data-testid="planner" data-fits={String(plan.fits)}>
      <div className="row">
        <span>
          plan on <b>{backend}</b>
        </span>
        {backend !== 'cpu' && (
          <select
            aria-label="base weight storage"
            data-testid="planner-dtype"
            value={dtype}
            onChange={(e) => setDtype(e.target.value as WeightDtype)}
          >
            <option value="f32">f32 weights</option>
            <option value="f16">f16 weights</option>
            <option value="bf16">bf16 weights</option>
          </select>
        )}
        {backend === 'webgpu' && (
          <input
            aria-label="GPU memory"
            data-testid="planner-gpu-memory"
            placeholder="GPU memory, e.g. 8GiB"
            value={gpuMemory}
            onChange={(e) => setGpuMemory(e.target.value)}
          />
        )}
      </div>
      <p data-testid="planner-parameters">
        {plan.model}: {plan.parameters.toLocaleString('en-US')} parameters
      </p>
      <table className="planner-bytes">
        <tbody>
          {(['weights', 'lora', 'optimizer', 'kv_cache', 'activations', 'total'] as const).map((k) => (
            <tr key={k} data-testid={`planner-${k}`}>
              <td>{k === 'total' ? 'total (peak)' : k}</td>
              <td>{formatBytes(b[k])}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p data-testid="planner-fits">
        {plan.fits === null
          ? 'fits: unknown (WebGPU does not tell the GPU memory: enter it above)'
          : plan.fits
            ? `fits: yes (limit ${formatBytes(plan.limit ?? 0)})`
            : plan.limit === null
              ? "fits: no (the step's rows in host memory, below)"
              : `fits: no (limit ${formatBytes(plan.limit)})`}
      </p>
      {gpu && backend === 'webgpu' && (
        <p className={bufferTooBig ? 'hint error' : 'hint'} data-testid="planner-adapter">
          adapter {gpu.name}: largest buffer {formatBytes(gpu.maxStorageBufferBindingSize)}; the largest weight matrix
          (embedding) takes {formatBytes(largest)}
          {bufferTooBig ? ': too large for this adapter (try f16 weights)' : ''}
        </p>
      )}
      {plan.bindings && (
        <p className={plan.bindings.message ? 'hint error' : 'hint'} data-testid="planner-binding">
          largest binding: {plan.bindings.largest.tensor}, {formatBytes(plan.bindings.largest.bytes)} of{' '}
          {formatBytes(plan.bindings.limit)}
          {gpu ? '' : " (the WebGPU spec's default limit)"}
          {plan.bindings.message ? <>: {plan.bindings.message}</> : ''}
        </p>
      )}
      {plan.suggestion && (
        <p data-testid="planner-suggestion">
          nearest config that fits: <code>{plan.suggestion.flags}</code> (peak {formatBytes(plan.suggestion.total)})
        </p>
      )}
      {plan.note && <p className="hint">{plan.note}</p>}
    </section>
  );
}

/** The calibration's estimate for the running config on the loaded model. */
export function CalibrationLine() {
  const c = usePlayground((st) => st.calibration);
  if (!c) return null;
  return (
    <p data-testid="planner-estimate" className={c.error ? 'hint error' : undefined}>
      {c.error
        ? `calibration failed: ${c.error}`
        : `about ${c.stepSeconds.toFixed(1)} s per step, ${(c.runSeconds / 60).toFixed(1)} min for the run (measured on ${c.model})`}
    </p>
  );
}
