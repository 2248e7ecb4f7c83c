// Node only: acquire a WebGPU device from Dawn (npm `webgpu`) for the CLI, benchmarks and tests.
// The engine never requests a device itself; callers hand the GPUDevice to `WebGpuBackend.create`.
// We request the adapter's own buffer limits (the spec defaults are only 128 / 256 MiB) and `shader-f16` when
// the adapter has it. On a machine without a GPU, Dawn finds SwiftShader only when VK_ICD_FILENAMES points at
// its Vulkan ICD (Debian's chromium ships /usr/lib/chromium/vk_swiftshader_icd.json).
// REMA_WEBGPU_LIMITS=default requests no raised limits, so the device has the spec's defaults (as a strict browser).
import { create, globals } from 'webgpu';
import {
  engineDeviceDescriptor,
  parseLimitsProfile,
  type LimitsProfile,
} from '../engine/backends/webgpu/device-request.ts';

export interface DawnDevice {
  device: GPUDevice;
  adapter: GPUAdapter;
  gpuInfo: GPUAdapterInfo;
  /** e.g. "google / swiftshader (fallback)" */
  description: string;
}

export interface DawnDeviceOptions {
  /** extra Dawn toggles, e.g. ['enable-dawn-features=allow_unsafe_apis'] */
  dawnFlags?: string[];
  powerPreference?: GPUPowerPreference;
  /** which limits to request (default: REMA_WEBGPU_LIMITS from the environment, else the adapter's own) */
  limits?: LimitsProfile;
  /** optional features not to request even where the adapter has them (tests of the engine without them) */
  withoutFeatures?: readonly GPUFeatureName[];
}

/** The limits profile REMA_WEBGPU_LIMITS names ('adapter' when unset). */
export function envLimitsProfile(): LimitsProfile {
  return parseLimitsProfile(process.env.REMA_WEBGPU_LIMITS);
}

let gpu: GPU | undefined;

export function describeGpu(info: GPUAdapterInfo, isFallback: boolean): string {
  const parts = [info.vendor || 'unknown vendor', info.architecture || info.device || 'unknown device'];
  return `${parts.join(' / ')}${isFallback ? ' (fallback)' : ''}`;
}

/** Returns null when no adapter exists (callers decide whether that is an error). */
export async function tryRequestDawnDevice(options: DawnDeviceOptions = {}): Promise<DawnDevice | null> {
  // Dawn's classes (GPUBufferUsage, ...) are globals in a browser; make them so in Node too.
  Object.assign(globalThis, globals);
  gpu ??= create(options.dawnFlags ?? []);
  const adapter = await gpu.requestAdapter({ powerPreference: options.powerPreference ?? 'high-performance' });
  if (!adapter) return null;
  const descriptor = engineDeviceDescriptor(adapter, 'rema-engine', options.limits ?? envLimitsProfile());
  const without = options.withoutFeatures ?? [];
  descriptor.requiredFeatures = [...(descriptor.requiredFeatures ?? [])].filter((f) => !without.includes(f));
  const device = await adapter.requestDevice(descriptor);
  const gpuInfo = adapter.info;
  const isFallback =
    (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter === true ||
    /swiftshader/i.test(`${gpuInfo.vendor} ${gpuInfo.architecture} ${gpuInfo.description}`);
  return { device, adapter, gpuInfo, description: describeGpu(gpuInfo, isFallback) };
}

/** Like tryRequestDawnDevice, but a missing adapter is an Error that says how to get one. */
export async function requestDawnDevice(options: DawnDeviceOptions = {}): Promise<DawnDevice> {
  const found = await tryRequestDawnDevice(options);
  if (found) return found;
  const icd = process.env.VK_ICD_FILENAMES;
  throw new Error(
    'WebGPU: Dawn found no adapter. ' +
      (icd
        ? `VK_ICD_FILENAMES=${icd} did not give a usable Vulkan driver; if the system has no Vulkan loader ` +
          '(package libvulkan1), start the process with LD_LIBRARY_PATH=/usr/lib/chromium (chromium ships one).'
        : 'On a machine without a GPU set VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json and, without ' +
          'the libvulkan1 package, LD_LIBRARY_PATH=/usr/lib/chromium (apt-get install -y chromium provides both).'),
  );
}
