// Test helper: a Dawn WebGPU device (SwiftShader on machines without a GPU) and a WebGpuBackend on it.
// A missing adapter is a failure, never a silent skip: `npm test` needs Debian's chromium (README), whose
// SwiftShader gives every machine an adapter; requireDawnDevice names what to install.
import { tryRequestDawnDevice, type DawnDevice } from '../../src/cli/webgpu-device.ts';

let cached: Promise<DawnDevice | null> | undefined;

/** Throws when Dawn found no adapter, saying how to get SwiftShader's. */
export function requireDawnDevice(found: DawnDevice | null): DawnDevice {
  if (!found) {
    throw new Error(
      "WebGPU has no adapter: install Debian's chromium (apt-get install -y chromium), whose SwiftShader Vulkan " +
        'driver vitest.config.ts points Dawn at (VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json).',
    );
  }
  return found;
}

/** The shared device of this test file; throws when there is none. */
export async function getTestDevice(): Promise<DawnDevice> {
  cached ??= tryRequestDawnDevice();
  return requireDawnDevice(await cached);
}

let cachedDefault: Promise<DawnDevice | null> | undefined;

/** A device created with no raised limits (the spec's defaults: 8 storage buffers per stage, 16 KiB workgroup
 *  memory, 128 MiB per binding), whatever REMA_WEBGPU_LIMITS says; throws when there is no adapter. */
export async function getDefaultLimitsDevice(): Promise<DawnDevice> {
  cachedDefault ??= tryRequestDawnDevice({ limits: 'default' });
  return requireDawnDevice(await cachedDefault);
}
