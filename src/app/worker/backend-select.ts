// Picks the compute backend for the session and says why, so the header can show it. The app acquires the
// GPUDevice (the engine never does). "auto" uses WebGPU only on a hardware adapter: on a software fallback
// adapter (SwiftShader, ~1 GFLOP/s) the CPU backend is faster for the tiny model, and the header says so.
// The WebGPU backend (its host code and every WGSL kernel) is imported only when it is chosen, so a page on the
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

function describeAdapter(adapter: GPUAdapter): string {
  const info = adapter.info;
  const fallback = isFallback(adapter) ? ' (software fallback)' : '';
  return `${info.vendor || 'unknown vendor'} / ${info.architecture || info.device || info.description || 'unknown device'}${fallback}`;
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

export async function selectBackend(preference: BackendPreference, gpu: GPU | undefined): Promise<SelectedBackend> {
  let adapter: GPUAdapter | null = null;
  let adapterError: string | null = null;
  if (preference !== 'cpu') {
    try {
      adapter = (await gpu?.requestAdapter({ powerPreference: 'high-performance' })) ?? null;
    } catch (e) {
      adapterError = (e as Error).message;
    }
  }
  const adapterText = adapter ? describeAdapter(adapter) : null;
  const cpu = async (reason: string): Promise<SelectedBackend> => {
    const backend = await cpuBackend();
    return {
      backend,
      info: {
        kind: backend.kind === 'wasm' ? 'wasm' : 'cpu',
        description: backend.description,
        f16: false,
        adapter: adapterText,
        cpuReason: reason,
      },
    };
  };

  if (preference === 'cpu') return cpu('chosen in the backend menu.');
  if (!adapter) {
    const why =
      gpu === undefined
        ? 'this browser has no WebGPU (navigator.gpu is missing)'
        : `no WebGPU adapter${adapterError ? ` (${adapterError})` : ''}`;
    return cpu(`${why}.`);
  }
  if (preference === 'auto' && isFallback(adapter)) {
    return cpu(
      `the only WebGPU adapter is a software fallback (${adapterText}); the CPU backend is faster here. Pick "WebGPU" in the backend menu to use it anyway.`,
    );
  }
  try {
    const device = await requestDevice(adapter);
    const { WebGpuBackend } = await import('../../engine/backends/webgpu.ts');
    const backend = WebGpuBackend.create(device, { adapterInfo: adapterText ?? undefined });
    return {
      backend,
      info: {
        kind: 'webgpu',
        description: adapterText ?? 'webgpu',
        f16: backend.supportsF16,
        adapter: adapterText,
        cpuReason: null,
      },
    };
  } catch (e) {
    return cpu(`the WebGPU device could not be created (${(e as Error).message}).`);
  }
}
