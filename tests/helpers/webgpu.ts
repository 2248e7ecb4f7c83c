// Test helper: a Dawn WebGPU device (SwiftShader on machines without a GPU) and a WebGpuBackend on it.
// Locally, a machine without any adapter skips the WebGPU tests (with a warning that says why); in CI (CI=true)
// a missing adapter is a failure, never a silent skip.
import { describe } from 'vitest';
import { tryRequestDawnDevice, type DawnDevice } from '../../src/cli/webgpu-device.ts';

let cached: Promise<DawnDevice | null> | undefined;

/** The shared device of this test file, or null when there is none (never null in CI). */
export async function getTestDevice(): Promise<DawnDevice | null> {
  cached ??= tryRequestDawnDevice();
  const found = await cached;
  if (!found && process.env.CI === 'true') {
    throw new Error(
      'CI=true but WebGPU has no adapter: set VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json ' +
        '(Debian package chromium) so Dawn finds SwiftShader.',
    );
  }
  return found;
}

/** True when this process can get a WebGPU adapter; throws in CI when it cannot. */
export async function hasWebGpu(): Promise<boolean> {
  return (await getTestDevice()) !== null;
}

const available = await hasWebGpu();
if (!available) {
  console.warn('WebGPU tests skipped: Dawn found no adapter (set VK_ICD_FILENAMES to SwiftShader; in CI this fails)');
}

/** `describe` that runs when a device exists; in CI a missing device fails the run instead of skipping. */
export const describeWebGpu = describe.skipIf(!available);
