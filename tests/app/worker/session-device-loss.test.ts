// A lost GPU device in the worker session, with the real engine on Dawn's WebGPU: the device is destroyed after
// step 1 is shown (the stand-in for a driver reset), and the next step finds it lost. The session says so in a
// non-fatal error, asks for a new device (or, when the browser has none to give, opens the CPU backend), restores
// the run as it was after step 1 (adapters, optimiser state, trainer state) and the following step is step 2: the
// same step 2 an uninterrupted run shows, so no step that was shown is lost or changed.
import { create, globals } from 'webgpu';
import { describe, expect, it } from 'vitest';
import type { WorkerEvent, WorkerRequest } from '../../../src/app/worker/protocol.ts';
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

/** Dawn's GPU, noting each device it creates; with `gpus.adapters` false it has no adapter to give. */
function watchedGpu() {
  const devices: GPUDevice[] = [];
  const state = { adapters: true };
  const gpu = overlay(dawn, {
    requestAdapter: async (options?: GPURequestAdapterOptions) => {
      if (!state.adapters) return null;
      const adapter = await dawn.requestAdapter(options);
      if (!adapter) return adapter;
      return overlay(adapter, {
        requestDevice: async (descriptor?: GPUDeviceDescriptor) => {
          const device = await adapter.requestDevice(descriptor);
          devices.push(device);
          return device;
        },
      });
    },
  });
  return { gpu, devices, state };
}

const load: WorkerRequest = {
  type: 'load',
  model: { kind: 'local', name: 'tiny-qwen', files: folderFiles(TINY_QWEN_FOLDER) },
  backend: 'webgpu',
  weights: 'f32',
  config: fixtureConfig({ evalBeforeTrain: false, steps: 3 }),
};

type StepEvent = Extract<WorkerEvent, { type: 'step' }>;
const texts = (e: StepEvent) => e.rollouts.map((r) => r.turns.map((t) => t.text).join(' | '));

/** Step 2 of a run that was never interrupted. */
async function uninterruptedStep2(): Promise<StepEvent> {
  const s = startSession(undefined, { gpu: dawn });
  await s.request(load, 'ready');
  await s.request({ type: 'step' }, 'step');
  return s.request({ type: 'step' }, 'step');
}

/** Loads on WebGPU, shows step 1, loses the device; returns the error the next step gave and the step after it. */
async function loseAfterStep1(noMoreAdapters: boolean) {
  const { gpu, devices, state } = watchedGpu();
  const s = startSession(undefined, { gpu });
  expect((await s.request(load, 'ready')).backend.kind).toBe('webgpu');
  expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(1);
  devices.at(-1)!.destroy();
  state.adapters = !noMoreAdapters;
  const error = await s.request({ type: 'step' }, 'error');
  const backend = s.events.findLast((e) => e.type === 'backend');
  const next = await s.request({ type: 'step' }, 'step');
  return { error, backend, next, events: s.events };
}

describe('a lost GPU device in the worker session', () => {
  it('moves the run onto the CPU backend when no device can be had, from the last step shown', async () => {
    const { error, backend, next, events } = await loseAfterStep1(true);
    expect(error.fatal).toBe(false);
    expect(error.continuable).toBe(true);
    expect(error.message).toMatch(/^The GPU device was lost during step 2 \(WebGPU device lost/);
    expect(error.message).toMatch(/moved to the CPU backend .* continues from step 1, the last step shown/);
    expect(backend).toMatchObject({ type: 'backend', backend: { kind: expect.stringMatching(/^(wasm|cpu)$/) } });
    // step 2 never reached the page before the loss; the next one is step 2, as an uninterrupted run's
    expect(events.filter((e) => e.type === 'step').map((e) => (e as StepEvent).metrics.step)).toEqual([1, 2]);
    const want = await uninterruptedStep2();
    expect(next.metrics.step).toBe(2);
    expect(texts(next)).toEqual(texts(want));
    expect(next.metrics.reward_mean).toBe(want.metrics.reward_mean);
  });

  it('asks for a new device when the browser still has one, and goes on there', async () => {
    const { error, backend, next } = await loseAfterStep1(false);
    expect(error.message).toMatch(/moved to a new WebGPU device .* continues from step 1/);
    expect(backend).toMatchObject({ type: 'backend', backend: { kind: 'webgpu' } });
    expect(next.metrics.step).toBe(2);
  });
});
