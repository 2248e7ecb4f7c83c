// The device the engine asks for (CLI and page alike, engineDeviceDescriptor) on Dawn's real adapter: the adapter's
// own limits and every optional feature the kernels use that the adapter offers (shader-f16, subgroups), and
// the device Dawn returns has them.
import { describe, expect, it } from 'vitest';
import { globals, create } from 'webgpu';
import {
  ENGINE_FEATURES,
  RAISED_LIMITS,
  engineDeviceDescriptor,
} from '../../src/engine/backends/webgpu/device-request.ts';
import { tryRequestDawnDevice } from '../../src/cli/webgpu-device.ts';
import { requireDawnDevice } from '../helpers/webgpu.ts';

describe('engineDeviceDescriptor', () => {
  it('asks for the adapter limits and the optional features it offers, and the device has them', async () => {
    Object.assign(globalThis, globals);
    const adapter = (await create([]).requestAdapter())!;
    expect(adapter).not.toBeNull();
    const d = engineDeviceDescriptor(adapter);
    expect(d.requiredFeatures).toEqual(ENGINE_FEATURES.filter((f) => adapter.features.has(f)));
    for (const name of RAISED_LIMITS)
      expect((d.requiredLimits as Record<string, number>)[name]).toBe(adapter.limits[name]);
    // (the adapter profile explicitly: REMA_WEBGPU_LIMITS=default would give the test device the spec's limits)
    const { device } = requireDawnDevice(await tryRequestDawnDevice({ limits: 'adapter' }));
    for (const f of d.requiredFeatures!) expect(device.features.has(f)).toBe(true);
    expect(device.limits.maxStorageBufferBindingSize).toBe(adapter.limits.maxStorageBufferBindingSize);
  });
});
