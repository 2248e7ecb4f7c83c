// Opens the compute backends the session can use and says why one is used, so the header can show it. The app
// acquires the GPUDevice (the engine never does). An explicit choice opens that backend ("cpu": the WebAssembly
// kernels, or plain JavaScript when they cannot start; "webgpu": the adapter's device, the CPU backend when there
// is none); "auto" starts on the CPU backend and finds the adapter (openAutoStart), and backend-auto.ts keeps the
// fastest on the model.
// The WebGPU backend (its host code and every WGSL kernel) is imported only when it is opened, so a page on the
// CPU backend does not load and parse it before its first rollout.
import type { Backend, BackendKind } from '../../engine/backend.ts';
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
  name: BackendKind;
  /** the backend and, for WebGPU, its device */
  close(): void;
}

function describeGpu(adapter: GPUAdapter): string {
  const info = adapter.info;
  const fallback = isFallback(adapter) ? ' (software fallback)' : '';
  return `${info.vendor || 'unknown vendor'} / ${info.architecture || info.device || info.description || 'unknown device'}${fallback}`;
}

/** Every field the adapter reports, so that another GPU or driver is another cache key. */
function gpuIdentity(adapter: GPUAdapter): string {
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

interface GpuLookup {
  adapter: GPUAdapter | null;
  /** why there is no adapter */
  why: string | null;
}

async function findGpu(gpu: GPU | undefined): Promise<GpuLookup> {
  if (gpu === undefined) return { adapter: null, why: 'this browser has no WebGPU (navigator.gpu is missing)' };
  try {
    const adapter = (await gpu.requestAdapter({ powerPreference: 'high-performance' })) ?? null;
    return { adapter, why: adapter ? null : 'no WebGPU adapter' };
  } catch (e) {
    return { adapter: null, why: `no WebGPU adapter (${(e as Error).message})` };
  }
}

async function openCpu(reason: string, gpuText: string | null): Promise<BackendCandidate> {
  const backend = await cpuBackend();
  const kind = backend.kind === 'wasm' ? 'wasm' : 'cpu';
  return {
    name: kind,
    backend,
    info: { kind, description: backend.description, f16: false, adapter: gpuText, cpuReason: reason },
    close: () => backend.destroy(),
  };
}

async function openWebGpu(adapter: GPUAdapter): Promise<BackendCandidate> {
  const gpuText = describeGpu(adapter);
  const device = await requestDevice(adapter);
  try {
    const { WebGpuBackend } = await import('../../engine/backends/webgpu.ts');
    const backend = WebGpuBackend.create(device, { gpuInfo: gpuText });
    return {
      name: 'webgpu',
      backend,
      info: {
        kind: 'webgpu',
        description: gpuText,
        f16: backend.prefersF16,
        adapter: gpuText,
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
  if (preference === 'wasm') return openCpu('chosen in the backend menu.', null);
  const { adapter, why } = await findGpu(gpu);
  if (!adapter) return openCpu(`${why}.`, null);
  try {
    return await openWebGpu(adapter);
  } catch (e) {
    return openCpu(`the WebGPU device could not be created (${(e as Error).message}).`, describeGpu(adapter));
  }
}

/** What "auto" opens before the model loads: the CPU backend (WebAssembly, or JavaScript when it cannot start), which
 *  the model becomes ready on at once, and the WebGPU adapter (or why there is none), whose device is opened only
 *  when it is measured or the kept rates chose it (backend-auto.ts). */
export interface AutoStart {
  cpu: BackendCandidate;
  adapter: GPUAdapter | null;
  /** why there is no adapter */
  why: string | null;
}

export async function openAutoStart(gpu: GPU | undefined): Promise<AutoStart> {
  const { adapter, why } = await findGpu(gpu);
  const cpu = await openCpu('', adapter ? describeGpu(adapter) : null);
  return { cpu, adapter, why };
}

/** The WebGPU candidate on `adapter`, or why its device could not be created. */
export async function openGpuCandidate(
  adapter: GPUAdapter,
): Promise<{ candidate: BackendCandidate; note: null } | { candidate: null; note: string }> {
  try {
    return { candidate: await openWebGpu(adapter), note: null };
  } catch (e) {
    return { candidate: null, note: `webgpu not measured: the device could not be created (${(e as Error).message})` };
  }
}

/** The cache key's hardware part: the adapter (or its absence), whether its device opened, the CPU backend's build. */
export function autoIdentity(start: AutoStart, deviceOpened: boolean): string {
  const gpuId = start.adapter ? gpuIdentity(start.adapter) : 'no adapter';
  return `gpu=${gpuId}${deviceOpened ? '' : ' (no device)'}|cpu=${start.cpu.info.description}`;
}
