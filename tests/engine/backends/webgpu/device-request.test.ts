// The device the engine asks for (CLI and page alike, engineDeviceDescriptor) on the test adapter: the adapter's
// own limits and every optional feature the kernels use that the adapter offers (shader-f16, subgroups), and
// the device the adapter returns for it has them.
import { describe, expect, it } from 'vitest';
import {
  ENGINE_FEATURES,
  RAISED_LIMITS,
  engineDeviceDescriptor,
} from '../../../../src/engine/backends/webgpu/device-request.ts';
import { getTestGpu } from '../../../helpers/webgpu.ts';

describe('engineDeviceDescriptor', () => {
  it('asks for the adapter limits and the optional features it offers, and the device has them', async () => {
    const adapter = await getTestGpu();
    const d = engineDeviceDescriptor(adapter);
    expect(d.requiredFeatures).toEqual(ENGINE_FEATURES.filter((f) => adapter.features.has(f)));
    for (const name of RAISED_LIMITS)
      expect((d.requiredLimits as Record<string, number>)[name]).toBe(adapter.limits[name]);
    // (the adapter profile itself: REMA_WEBGPU_LIMITS=default would give the test device the spec's limits)
    const device = await adapter.requestDevice(d);
    for (const f of d.requiredFeatures!) expect(device.features.has(f)).toBe(true);
    expect(device.limits.maxStorageBufferBindingSize).toBe(adapter.limits.maxStorageBufferBindingSize);
    device.destroy();
  });
});
