// What the engine asks of a WebGPU adapter, in the page and in Node alike: the adapter's own buffer and workgroup
// limits (the spec's defaults, 128 / 256 MiB buffers, are too small for real models) and the optional features its
// kernels use when present: `shader-f16` (f16 weight storage), `subgroups` (subgroupAdd reductions in matvec) and
// `timestamp-query` (per-kernel GPU times, only when a benchmark asks: WebGpuBackend.profileKernels).
// The 'default' limits profile asks for no raised limit, so the device has the spec's defaults (SPEC_LIMITS), as a
// browser that grants nothing more would give; every kernel must run there too.

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

/** The WebGPU spec's default limits that the kernels depend on (what a device created without requiredLimits has). */
export const SPEC_LIMITS = {
  maxBufferSize: 256 * 1024 * 1024,
  maxStorageBufferBindingSize: 128 * 1024 * 1024,
  maxComputeWorkgroupStorageSize: 16384,
  maxStorageBuffersPerShaderStage: 8,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
  maxComputeWorkgroupSizeY: 256,
  maxComputeWorkgroupsPerDimension: 65535,
} as const;

/** 'adapter': raise the limits to the adapter's own values; 'default': request none (the spec's defaults). */
export type LimitsProfile = 'adapter' | 'default';

/** Optional features the kernels use when the device has them. */
export const ENGINE_FEATURES: readonly GPUFeatureName[] = ['shader-f16', 'subgroups', 'timestamp-query'];

/** The device descriptor for `adapter`: its raised limits (none under the 'default' profile) and whichever
 *  ENGINE_FEATURES it offers. */
export function engineDeviceDescriptor(
  adapter: Pick<GPUAdapter, 'limits' | 'features'>,
  label = 'rema-engine',
  profile: LimitsProfile = 'adapter',
): GPUDeviceDescriptor {
  const requiredLimits: Record<string, number> = {};
  if (profile === 'adapter') for (const name of RAISED_LIMITS) requiredLimits[name] = adapter.limits[name];
  return { requiredLimits, requiredFeatures: ENGINE_FEATURES.filter((f) => adapter.features.has(f)), label };
}

/** The profile a REMA_WEBGPU_LIMITS value names ('default' or 'adapter'; unset: 'adapter'); throws on others. */
export function parseLimitsProfile(value: string | undefined): LimitsProfile {
  if (value === undefined || value === '' || value === 'adapter') return 'adapter';
  if (value === 'default') return 'default';
  throw new Error(`REMA_WEBGPU_LIMITS=${value}: expected 'default' (the spec's limits) or 'adapter' (the adapter's)`);
}
