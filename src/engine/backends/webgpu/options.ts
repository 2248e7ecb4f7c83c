// The WebGPU backend's options, and what it reads from the adapter to choose its defaults (software adapters such
// as SwiftShader get the kernels without workgroup barriers; subgroup sizes for the matrix-vector kernel).

export interface WebGpuBackendOptions {
  /** human-readable adapter description for `description` (e.g. from src/cli/webgpu-device.ts) */
  gpuInfo?: GPUAdapterInfo | string;
  /** Pretend the binding limit is this many bytes (tests of tensor splitting); must be a multiple of 4. */
  maxStorageBufferBindingSize?: number;
  /** Refuse allocations once this many tensor bytes are live (default: no limit but the device's). */
  maxTotalBytes?: number;
  /** Bytes of scratch space a kernel may use for one vocabulary chunk (logprob); default 32 MiB. */
  scratchBytes?: number;
  /** Bytes of uniform parameter slots (256 each) batched before a forced submit; default 1 MiB. */
  uniformRingBytes?: number;
  /** Use the decode kernels (few-rows matmul, matrix-vector kernel; row-per-workgroup rmsnorm unless rowNorm says
   *  otherwise) — default: on
   *  hardware adapters, off on software ones (SwiftShader), where their workgroup barriers cost more than they save. */
  fewRowsMatmul?: boolean;
  /** rmsnorm forward and backward with one workgroup per row (workgroup-memory reductions, barriers) — default:
   *  as fewRowsMatmul (on hardware adapters, off on software ones). */
  rowNorm?: boolean;
  /** The tiled matmul for M >= 16 rows (workgroup memory; outputs per thread and side, 0 = off) — default 4 on
   *  hardware adapters, off on software ones (barriers are slow there). */
  tiledMatmul?: 0 | 2 | 4;
  /** The tiled matmul's layout: padded workgroup tiles and vec4 staging loads where the operands allow (default
   *  true), or false for the unpadded layout with scalar loads (benchmarks compare the two). */
  paddedTiles?: boolean;
  /** Flash-decoding attention for one query per sequence (workgroup memory, barriers) — default on hardware
   *  adapters, off on software ones. */
  flashDecode?: boolean;
  /** The flash-attention forward for prefill and scoring (K/V tiles in workgroup memory, barriers) — default on
   *  hardware adapters, off on software ones. */
  flashAttention?: boolean;
  /** The tiled attention backward (workgroup memory, barriers) — default on hardware adapters, off on software ones. */
  tiledAttention?: boolean;
  /** f16 weight storage. The kernels read halves with core WGSL (unpack2x16float), so every adapter stores them
   *  (supportsF16), with or without `shader-f16`. 'auto' (default): baseDtype 'auto' picks halves only with the
   *  shader-f16 feature, i.e. on hardware where half precision is the norm (prefersF16); 'always': picks them on
   *  every adapter; 'never': refuses them. */
  f16Storage?: 'auto' | 'always' | 'never';
  /** precompile() creates pipelines with createComputePipelineAsync (in parallel, off the calling thread) —
   *  default: on hardware adapters; off on software ones, where Dawn over SwiftShader took about twice as long in
   *  wall time as the sync call (bench/README.md), so the sync call compiles them there, still before the first
   *  dispatch. */
  asyncPipelines?: boolean;
  /** Choose every default as a hardware adapter gets it (the kernels with workgroup memory and barriers, async
   *  pipelines) even on a software adapter, so that tests and self-checks on SwiftShader or lavapipe run the kernels
   *  real GPUs run; default false: the defaults follow the adapter. */
  hardwareDefaults?: boolean;
  /** Record the body given to repeat() (a decode step) and replay it on later calls (default true); false runs it
   *  plainly every time (tests compare the two). */
  replay?: boolean;
}

/** True for CPU-emulated adapters (SwiftShader, llvmpipe / lavapipe) and adapters that say they are a fallback. */
export function isSoftwareGpu(info: GPUAdapterInfo | string | undefined): boolean {
  if (info === undefined) return false;
  if (typeof info === 'string') return /swiftshader|fallback|llvmpipe|lavapipe/i.test(info);
  return (
    (info as GPUAdapterInfo & { isFallbackAdapter?: boolean }).isFallbackAdapter === true ||
    /swiftshader|llvmpipe|lavapipe/i.test(`${info.vendor} ${info.architecture} ${info.device} ${info.description}`)
  );
}

/** [min, max] subgroup size of a device created with the `subgroups` feature (from its adapter info), else null. */
export function subgroupSizes(device: GPUDevice): readonly [number, number] | null {
  if (!device.features.has('subgroups')) return null;
  const info = (
    device as GPUDevice & { adapterInfo?: GPUAdapterInfo & { subgroupMinSize?: number; subgroupMaxSize?: number } }
  ).adapterInfo;
  const min = info?.subgroupMinSize,
    max = info?.subgroupMaxSize;
  if (!min || !max || max > 128 || (max & (max - 1)) !== 0 || (min & (min - 1)) !== 0) return null;
  return [min, max];
}
