// Test helper: the WebGPU device every WebGPU test file runs on, and the backends built on it. The device comes
// from the runtime's own navigator.gpu when it has one (Deno: wgpu, `npm run test:wgpu`), else from Dawn (npm
// `webgpu`) on the Vulkan driver VK_ICD_FILENAMES names (SwiftShader by default, lavapipe, a GPU). It is requested
// as the engine requests it (engineDeviceDescriptor; REMA_WEBGPU_LIMITS=default: the spec's limits). A missing
// adapter is a failure, never a silent skip. A file that imports this helper is a WebGPU test file: the WebGPU
// runs (vitest.webgpu.config.ts) pick exactly those files.
import { WebGpuBackend, type WebGpuBackendOptions } from '../../src/engine/backends/webgpu.ts';
import {
  ENGINE_FEATURES,
  engineDeviceDescriptor,
  parseLimitsProfile,
  type LimitsProfile,
} from '../../src/engine/backends/webgpu/device-request.ts';

export interface TestDevice {
  adapter: GPUAdapter;
  device: GPUDevice;
  gpuInfo: GPUAdapterInfo;
  /** e.g. "google / swiftshader" */
  description: string;
  /** which WebGPU implementation gave the device */
  implementation: 'dawn' | 'wgpu';
}

const NO_GPU =
  "WebGPU has no adapter: install Debian's chromium (apt-get install -y chromium), whose Vulkan driver " +
  'vitest.config.ts points Dawn at by default, or run scripts/webgpu/install-drivers.sh for lavapipe and wgpu ' +
  '(docs/backends.md).';

let gpu: Promise<{ gpu: GPU; implementation: TestDevice['implementation'] }> | undefined;
const devices = new Map<string, Promise<TestDevice>>();

async function testGpu(): Promise<{ gpu: GPU; implementation: TestDevice['implementation'] }> {
  const own = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu;
  if (own) return { gpu: own, implementation: 'wgpu' };
  const { create, globals } = await import('webgpu');
  // Dawn's classes (GPUBufferUsage, ...) are globals where WebGPU is built in; make them so here too.
  Object.assign(globalThis, globals);
  return { gpu: create([]), implementation: 'dawn' };
}

/** The adapter the test devices come from; throws when there is none. */
export async function getTestGpu(): Promise<GPUAdapter> {
  gpu ??= testGpu();
  const adapter = await (await gpu).gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error(NO_GPU);
  return adapter;
}

/** The engine's optional features this adapter offers (the golden feature matrix enables each subset). */
export async function gpuEngineFeatures(): Promise<GPUFeatureName[]> {
  const adapter = await getTestGpu();
  return ENGINE_FEATURES.filter((f) => adapter.features.has(f));
}

/** Every combination of `features`, each in the order given: 2^n of them, from none to all. */
export function featureSubsets(features: readonly GPUFeatureName[]): GPUFeatureName[][] {
  return Array.from({ length: 2 ** features.length }, (_, mask) => features.filter((_f, i) => mask & (1 << i)));
}

/** The descriptor the engine asks for, with only `features` of its optional features when given. */
export function testDeviceDescriptor(
  adapter: Pick<GPUAdapter, 'limits' | 'features'>,
  features?: readonly GPUFeatureName[],
  limits: LimitsProfile = parseLimitsProfile(process.env.REMA_WEBGPU_LIMITS),
): GPUDeviceDescriptor {
  const descriptor = engineDeviceDescriptor(adapter, 'rema-test', limits);
  if (features) descriptor.requiredFeatures = [...descriptor.requiredFeatures!].filter((f) => features.includes(f));
  return descriptor;
}

/** A fresh device of its own (for a test that destroys or alters it); `features`: only these of the engine's
 *  optional features (default: every one the adapter has). */
export async function requestTestDevice(
  features?: readonly GPUFeatureName[],
  limits?: LimitsProfile,
): Promise<TestDevice> {
  const adapter = await getTestGpu();
  const device = await adapter.requestDevice(testDeviceDescriptor(adapter, features, limits));
  const info = adapter.info;
  const description = `${info.vendor || 'unknown vendor'} / ${info.architecture || info.device || 'unknown device'}`;
  return { adapter, device, gpuInfo: info, description, implementation: (await gpu!).implementation };
}

/** The shared device of this test file (one per feature set), as requestTestDevice gives it. */
export function getTestDevice(features?: readonly GPUFeatureName[]): Promise<TestDevice> {
  const key = features ? features.toSorted().join(',') : '*';
  let found = devices.get(key);
  if (!found) {
    found = requestTestDevice(features);
    devices.set(key, found);
  }
  return found;
}

/** A backend with the kernels a hardware adapter gets by default (on every adapter, software ones included),
 *  its storage type as the device's features choose it (f16 weights with shader-f16), and `options` on top. */
export function testBackend(dev: TestDevice, options: WebGpuBackendOptions = {}): WebGpuBackend {
  return WebGpuBackend.create(dev.device, { gpuInfo: dev.gpuInfo, hardwareDefaults: true, ...options });
}

/** testBackend on a device with only some of the engine's features (the golden feature matrix): with
 *  `timestamp-query` the backend also times every dispatch (each in its own pass), as a profiled run does. */
export function featureBackend(dev: TestDevice): WebGpuBackend {
  const be = testBackend(dev);
  if (dev.device.features.has('timestamp-query')) be.profileKernels();
  return be;
}

/** The f32 base: f32 weights and the plain kernels (no workgroup-memory variants), whatever the adapter offers. */
export function baseBackend(dev: TestDevice, options: WebGpuBackendOptions = {}): WebGpuBackend {
  return WebGpuBackend.create(dev.device, {
    gpuInfo: dev.gpuInfo,
    f16Storage: 'never',
    fewRowsMatmul: false,
    tiledMatmul: 0,
    flashDecode: false,
    tiledAttention: false,
    flashAttention: false,
    asyncPipelines: false,
    ...options,
  });
}

let cachedDefault: Promise<TestDevice> | undefined;

/** A device created with no raised limits (the spec's defaults: 8 storage buffers per stage, 16 KiB workgroup
 *  memory, 128 MiB per binding), whatever REMA_WEBGPU_LIMITS says; throws when there is no adapter. */
export function getDefaultLimitsDevice(): Promise<TestDevice> {
  cachedDefault ??= requestTestDevice(undefined, 'default');
  return cachedDefault;
}
