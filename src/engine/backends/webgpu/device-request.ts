// What the engine asks of a WebGPU adapter, in the page and in Node alike: the adapter's own buffer and workgroup
// limits (the spec's defaults, 128 / 256 MiB buffers, are too small for real models) and the optional features its
// kernels use when present: `shader-f16` (f16 weight storage), `subgroups` (subgroupAdd reductions in matvec) and
// `timestamp-query` (per-kernel GPU times, only when a benchmark asks: WebGpuBackend.profileKernels).

/** Limits raised to the adapter's own values. */
export const RAISED_LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
] as const;

/** Optional features the kernels use when the device has them. */
export const ENGINE_FEATURES: readonly GPUFeatureName[] = ['shader-f16', 'subgroups', 'timestamp-query'];

/** The device descriptor for `adapter`: its raised limits and whichever ENGINE_FEATURES it offers. */
export function engineDeviceDescriptor(
  adapter: Pick<GPUAdapter, 'limits' | 'features'>,
  label = 'rema-engine',
): GPUDeviceDescriptor {
  const requiredLimits: Record<string, number> = {};
  for (const name of RAISED_LIMITS) requiredLimits[name] = adapter.limits[name];
  return { requiredLimits, requiredFeatures: ENGINE_FEATURES.filter((f) => adapter.features.has(f)), label };
}
