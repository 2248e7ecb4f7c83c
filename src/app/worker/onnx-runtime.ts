// onnxruntime-web in the training worker: which build to load and which execution providers (EPs) to try.
// The WebGPU EP runs when the page's own backend runs on WebGPU (measured fastest under "auto", or WebGPU
// picked in the menu), with the WASM EP as its fallback; everything else uses the WASM EP. The builds are
// imported on first use, so a page without an ONNX model never downloads onnxruntime's WebAssembly (14 MB for
// the WASM build, 27 MB for the WebGPU one). Vite emits the .wasm files next to the worker bundle
// (onnxruntime-web's ESM builds name them with new URL(..., import.meta.url)), so nothing comes from a CDN.
import type { OrtModuleLike } from '../../rl/frozen-agent.ts';

/** The EP the page's backend suggests. */
export type WantedEp = 'webgpu' | 'wasm';

/** onnxruntime for an EP, the providers to try in order, and how the header names it (tests inject onnxruntime-node). */
export interface OrtRuntime {
  ort: OrtModuleLike;
  providers: readonly string[];
  /** e.g. "onnxruntime-web 1.30.0" */
  name: string;
}

export type OrtLoader = (ep: WantedEp) => Promise<OrtRuntime>;

type OrtWeb = typeof import('onnxruntime-web');
const builds: Partial<Record<WantedEp, Promise<OrtWeb>>> = {};

/** onnxruntime-web: the WebAssembly-only build for the WASM EP, the WebGPU EP build (WASM as fallback) for WebGPU. */
export const loadOrtWeb: OrtLoader = async (ep) => {
  builds[ep] ??= (ep === 'webgpu' ? import('onnxruntime-web/webgpu') : import('onnxruntime-web/wasm')).then((ort) => {
    // one thread: the engine's own CPU backend already uses the cores, and no nested worker pool is needed
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.proxy = false;
    return ort;
  });
  const ort = await builds[ep];
  return {
    ort: ort as unknown as OrtModuleLike,
    providers: ep === 'webgpu' ? ['webgpu', 'wasm'] : ['wasm'],
    name: `onnxruntime-web ${ort.env.versions.web ?? ort.env.versions.common}`,
  };
};

/** "onnxruntime-web 1.30.0 WASM EP" */
export function runtimeLabel(runtimeName: string, executionProvider: string): string {
  const ep = executionProvider === 'webgpu' ? 'WebGPU' : executionProvider.toUpperCase();
  return `${runtimeName} ${ep} EP`;
}
