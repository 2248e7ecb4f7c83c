// Opens the compute backends the session can use and says why one is used, so the header can show it. The app
// acquires the GPUDevice (the engine never does). An explicit choice opens that backend ("cpu": the WebAssembly
// kernels, or plain JavaScript when they cannot start; "webgpu": the adapter's device, the CPU backend when there
// is none); "auto" opens every candidate (openCandidates) and backend-auto.ts keeps the fastest on the model.
// The WebGPU backend (its host code and every WGSL kernel) is imported only when it is opened, so a page on the
// CPU backend does not load and parse it before its first rollout.
import type { Backend } from '../../engine/backend.ts';
import { CpuBackend } from '../../engine/backends/cpu.ts';
import { WasmBackend } from '../../engine/backends/wasm.ts';
import type { BackendInfo, BackendPreference } from './protocol.ts';
import { spawnWebWasmHelper } from './wasm-helper.ts';
import { engineDeviceDescriptor } from '../../engine/backends/webgpu/device-request.ts';

export interface SelectedBackend {
  backend: Backend;
  info: BackendInfo;
}

/** An opened backend "auto" may choose: its name, what the page shows when it wins, and how to close it. */
export interface BackendCandidate extends SelectedBackend {
  name: 'webgpu' | 'wasm' | 'cpu';
  /** the backend and, for WebGPU, its device */
  close(): void;
}

function describeAdapter(adapter: GPUAdapter): string {
  const info = adapter.info;
  const fallback = isFallback(adapter) ? ' (software fallback)' : '';
  return `${info.vendor || 'unknown vendor'} / ${info.architecture || info.device || info.description || 'unknown device'}${fallback}`;
}

/** Every field the adapter reports, so that another GPU or driver is another cache key. */
function adapterIdentity(adapter: GPUAdapter): string {
  const i = adapter.info;
  return [i.vendor, i.architecture, i.device, i.description, isFallback(adapter) ? 'fallback' : ''].join('/');
}

function isFallback(adapter: GPUAdapter): boolean {
  const a = adapter as GPUAdapter & {
    isFallbackAdapter?: boolean;
    info: GPUAdapterInfo & { isFallbackAdapter?: boolean };
  };
  return a.info.isFallbackAdapter ?? a.isFallbackAdapter ?? false;
}

/** The CPU backend the page uses: WebAssembly SIMD kernels where the browser has SIMD (on two threads when the
 *  page is cross-origin isolated and the machine has two cores), else plain JavaScript. */
async function cpuBackend(): Promise<Backend> {
  try {
    return await WasmBackend.create({ spawnHelper: spawnWebWasmHelper });
  } catch (e) {
    // say why (no SIMD, or the kernels' memory could not be reserved), so the header explains the slower path
    return new CpuBackend({
      description: `JavaScript kernels (the WebAssembly SIMD kernels did not start: ${(e as Error).message})`,
    });
  }
}

/** The adapter's real limits (the defaults are too small for real models) and the optional features the kernels use. */
async function requestDevice(adapter: GPUAdapter): Promise<GPUDevice> {
  return adapter.requestDevice(engineDeviceDescriptor(adapter));
}

interface AdapterLookup {
  adapter: GPUAdapter | null;
  /** why there is no adapter */
  why: string | null;
}

async function findAdapter(gpu: GPU | undefined): Promise<AdapterLookup> {
  if (gpu === undefined) return { adapter: null, why: 'this browser has no WebGPU (navigator.gpu is missing)' };
  try {
    const adapter = (await gpu.requestAdapter({ powerPreference: 'high-performance' })) ?? null;
    return { adapter, why: adapter ? null : 'no WebGPU adapter' };
  } catch (e) {
    return { adapter: null, why: `no WebGPU adapter (${(e as Error).message})` };
  }
}

async function openCpu(reason: string, adapterText: string | null): Promise<BackendCandidate> {
  const backend = await cpuBackend();
  const kind = backend.kind === 'wasm' ? 'wasm' : 'cpu';
  return {
    name: kind,
    backend,
    info: { kind, description: backend.description, f16: false, adapter: adapterText, cpuReason: reason },
    close: () => backend.destroy(),
  };
}

async function openWebGpu(adapter: GPUAdapter): Promise<BackendCandidate> {
  const adapterText = describeAdapter(adapter);
  const device = await requestDevice(adapter);
  try {
    const { WebGpuBackend } = await import('../../engine/backends/webgpu.ts');
    const backend = WebGpuBackend.create(device, { adapterInfo: adapterText });
    return {
      name: 'webgpu',
      backend,
      info: {
        kind: 'webgpu',
        description: adapterText,
        f16: backend.supportsF16,
        adapter: adapterText,
        cpuReason: null,
      },
      close: () => {
        backend.destroy();
        device.destroy();
      },
    };
  } catch (e) {
    device.destroy();
    throw e;
  }
}

export async function selectBackend(
  preference: Exclude<BackendPreference, 'auto'>,
  gpu: GPU | undefined,
): Promise<SelectedBackend> {
  if (preference === 'cpu') return openCpu('chosen in the backend menu.', null);
  const { adapter, why } = await findAdapter(gpu);
  if (!adapter) return openCpu(`${why}.`, null);
  try {
    return await openWebGpu(adapter);
  } catch (e) {
    return openCpu(`the WebGPU device could not be created (${(e as Error).message}).`, describeAdapter(adapter));
  }
}

/** What "auto" chooses from: the WebGPU backend when an adapter and its device exist, and the CPU backend
 *  (WebAssembly, or JavaScript when it cannot start). `identity` names the adapter (or its absence) and the CPU
 *  backend's build, for the cache key; `note` says why WebGPU is not a candidate. */
export async function openCandidates(
  gpu: GPU | undefined,
): Promise<{ candidates: BackendCandidate[]; identity: string; note: string | null }> {
  const { adapter, why } = await findAdapter(gpu);
  const candidates: BackendCandidate[] = [];
  let note = why && `webgpu not measured: ${why}`;
  if (adapter) {
    try {
      candidates.push(await openWebGpu(adapter));
    } catch (e) {
      note = `webgpu not measured: the device could not be created (${(e as Error).message})`;
    }
  }
  const adapterText = adapter ? describeAdapter(adapter) : null;
  candidates.push(await openCpu('', adapterText));
  const gpuId = adapter ? adapterIdentity(adapter) : 'no adapter';
  const identity = `gpu=${gpuId}${candidates[0].name === 'webgpu' ? '' : ' (no device)'}|cpu=${candidates.at(-1)?.info.description}`;
  return { candidates, identity, note };
}
