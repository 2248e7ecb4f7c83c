// The page's weight precision (the load request's `weights`, the model panel's "weights" menu) in the worker session
// with the real engine on Dawn's WebGPU: 'auto' stores the frozen base and the KV cache as f16 on a device with
// shader-f16, 'f32' forces full precision, and the ready event says which (the header shows it). SwiftShader has no
// shader-f16, so the hardware case runs on Dawn's device with the feature reported (withShaderF16): the kernels read
// halves with core WGSL (unpack2x16float), so f16 storage runs on any adapter; only the feature flag is added.
import { create, globals } from 'webgpu';
import { describe, expect, it } from 'vitest';
import type { WorkerRequest } from '../../../src/app/worker/protocol.ts';
import { fixtureConfig, folderFiles, startSession, TINY_QWEN_FOLDER } from '../../helpers/app/session-driver.ts';

Object.assign(globalThis, globals);
const dawn = create([]);

/** `target` with some properties replaced; its own methods stay bound to it (Dawn's objects need their receiver). */
function overlay<T extends object>(target: T, replaced: Record<string, unknown>): T {
  return new Proxy(target, {
    get(t, prop) {
      if (typeof prop === 'string' && prop in replaced) return replaced[prop];
      const v: unknown = Reflect.get(t, prop, t);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

/** Dawn's GPU whose devices report shader-f16, as a hardware adapter's do. */
function withShaderF16(gpu: GPU): GPU {
  return overlay(gpu, {
    requestAdapter: async (options?: GPURequestAdapterOptions) => {
      const adapter = await gpu.requestAdapter(options);
      if (!adapter) return adapter;
      return overlay(adapter, {
        requestDevice: async (descriptor?: GPUDeviceDescriptor) => {
          const device = await adapter.requestDevice(descriptor);
          return overlay(device, { features: new Set([...device.features, 'shader-f16']) });
        },
      });
    },
  });
}

function load(weights?: 'auto' | 'f32', backend: 'webgpu' | 'auto' = 'webgpu'): WorkerRequest {
  return {
    type: 'load',
    model: { kind: 'local', name: 'tiny-qwen', files: folderFiles(TINY_QWEN_FOLDER) },
    backend,
    config: fixtureConfig({ evalBeforeTrain: false }),
    ...(weights ? { weights } : {}),
  };
}

describe('weight precision in the worker session (WebGPU on Dawn)', () => {
  it("'auto' trains over an f16 base and KV cache on a shader-f16 device; 'f32' forces full precision", async () => {
    const s = startSession(undefined, { gpu: withShaderF16(dawn) });
    const auto = await s.request(load(), 'ready');
    expect(auto.backend).toMatchObject({ kind: 'webgpu', f16: true, storage: { base: 'f16', kvCache: 'f16' } });
    expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(1);
    const f32 = await s.request(load('f32'), 'ready');
    expect(f32.backend).toMatchObject({ kind: 'webgpu', f16: true, storage: { base: 'f32', kvCache: 'f32' } });
    expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(1);
  });

  it("backend 'auto' measures with the chosen weights (its kept rates are per weight storage)", async () => {
    const s = startSession(undefined, { gpu: dawn });
    await s.request(load('f32', 'auto'), 'ready');
    // the measurement comes after the start-up work (session-auto.ts)
    const measured = await s.until((e) => e.type === 'backend' && e.backend.auto !== undefined);
    if (measured.type !== 'backend') throw new Error('not a backend event');
    expect(measured.backend.auto?.key).toMatch(/\|weights=f32$/);
    expect(measured.backend.storage).toEqual({ base: 'f32', kvCache: 'f32' });
  });

  it("without shader-f16 'auto' stays f32", async () => {
    const s = startSession(undefined, { gpu: dawn });
    const ready = await s.request(load('auto'), 'ready');
    expect(ready.backend).toMatchObject({ kind: 'webgpu', f16: false, storage: { base: 'f32', kvCache: 'f32' } });
  });
});
