// The worker session's "auto" backend (backend-auto.ts, session-auto.ts) on the real engine. A first load is ready at
// once on the WebAssembly backend ("for now") and its first rollout comes before the measurement, which runs as a
// queued job before any step: with Dawn's WebGPU (SwiftShader here) it measures WebGPU and wasm on the loaded model
// and keeps the one with the shortest estimated step, moving the trainer onto WebGPU when it won, so a Train pressed
// meanwhile starts on the winner. Rates the page kept under the same key choose without measuring (another key's do
// not, and "remeasure" measures anyway); without WebGPU it measures wasm alone and says why; a failed measurement
// keeps wasm and says why; an explicit choice measures nothing.
import { create, globals } from 'webgpu';
import { describe, expect, it } from 'vitest';
import { autoKey, modelShapeHash } from '../../../src/app/worker/backend-auto.ts';
import type { BackendInfo, CachedBackendRates, WorkerEvent, WorkerRequest } from '../../../src/app/worker/protocol.ts';
import { fixtureConfig, folderFiles, startSession, TINY_QWEN_FOLDER } from '../../helpers/app/session-driver.ts';

Object.assign(globalThis, globals);
const dawn = create([]);

function load(over: Partial<Extract<WorkerRequest, { type: 'load' }>> = {}): WorkerRequest {
  return {
    type: 'load',
    model: { kind: 'local', name: 'tiny-qwen', files: folderFiles(TINY_QWEN_FOLDER) },
    backend: 'auto',
    config: fixtureConfig({ evalBeforeTrain: false }),
    ...over,
  };
}

/** the backend events that carry a fresh measurement (not kept rates) */
const measured = (events: WorkerEvent[]) =>
  events.filter(
    (e): e is Extract<WorkerEvent, { type: 'backend' }> => e.type === 'backend' && e.backend.auto?.cached === false,
  );
const isMeasured = (e: WorkerEvent) => e.type === 'backend' && e.backend.auto?.cached === false;
const measuringLines = (events: WorkerEvent[]) =>
  events.flatMap((e) => (e.type === 'activity' && e.text.startsWith('auto backend: measuring') ? [e.text] : []));

/** Dawn's navigator.gpu with every queue submission of the devices it creates counted. */
function countingGpu() {
  const counter = { submits: 0 };
  const gpu = {
    requestAdapter: async (options?: GPURequestAdapterOptions) => {
      const adapter = await dawn.requestAdapter(options);
      if (!adapter) return adapter;
      const requestDevice = adapter.requestDevice.bind(adapter);
      adapter.requestDevice = async (descriptor?: GPUDeviceDescriptor) => {
        const device = await requestDevice(descriptor);
        const submit = device.queue.submit.bind(device.queue);
        device.queue.submit = (buffers: Iterable<GPUCommandBuffer>) => {
          counter.submits++;
          submit(buffers);
        };
        return device;
      };
      return adapter;
    },
    getPreferredCanvasFormat: () => dawn.getPreferredCanvasFormat(),
  } as unknown as GPU;
  return { gpu, counter };
}

/** A clock that runs `factor` times faster while `slow` is measured: that candidate's rates look slower. */
function slowedClock(slow: string, factor: number) {
  let last = performance.now();
  let virtual = 0;
  return (candidate: string) => {
    const now = performance.now();
    virtual += (now - last) * (candidate === slow ? factor : 1);
    last = now;
    return virtual;
  };
}

describe('auto backend', () => {
  it('is ready on wasm with a rollout before the measurement; a Train pressed meanwhile steps on the winner', async () => {
    const { gpu, counter } = countingGpu();
    const submitsAt = new Map<WorkerEvent, number>();
    // wasm's clock runs 500x fast while it is measured (it looks 500x slower), so WebGPU wins and the session must
    // move onto it: on a software adapter WebGPU is 10-20x slower than wasm, and more on a loaded 2-core machine
    // (at 50x it lost once under the full test run's load)
    const s = startSession(undefined, { gpu, autoClock: slowedClock('wasm', 500) }, (e) =>
      submitsAt.set(e, counter.submits),
    );
    const ready = await s.request(load({ config: fixtureConfig({ evalBeforeTrain: false, steps: 1 }) }), 'ready');
    expect(ready.backend.kind).toBe('wasm');
    expect(ready.backend.auto).toBeUndefined();
    expect(ready.backend.autoPending).toEqual({
      line: 'auto -> wasm for now; measuring webgpu and wasm on this model…',
      measuring: true,
    });
    expect(ready.backend.cpuReason).toBe('auto -> wasm for now; measuring webgpu and wasm on this model…');
    // Train while the measurement has not answered
    expect(measured(s.events)).toEqual([]);
    const step = await s.request({ type: 'train' }, 'step');

    const at = (e: WorkerEvent) => s.events.indexOf(e);
    const followed = s.events.find((e) => e.type === 'followed')!;
    const [result] = measured(s.events);
    expect(at(ready)).toBeLessThan(at(followed));
    expect(at(followed)).toBeLessThan(at(result));
    expect(at(result)).toBeLessThan(at(step));
    expect(measuringLines(s.events)).toEqual(['auto backend: measuring webgpu', 'auto backend: measuring wasm']);

    const auto = result.backend.auto!;
    expect(auto.choice.winner).toBe('webgpu');
    expect(result.backend.kind).toBe('webgpu');
    expect(result.backend.cpuReason).toBeNull();
    expect(result.backend.autoPending).toBeUndefined();
    expect(result.backend.storage).toBeDefined();
    expect(auto.line).toMatch(/^auto -> webgpu: .*\(wasm .*; switched from wasm; measured [0-9.]+ m?s\)$/);
    // the first step ran on WebGPU: the trainer submitted GPU work after the switch
    expect(submitsAt.get(step)!).toBeGreaterThan(submitsAt.get(result)!);
    expect(step.metrics.step).toBe(1);
  }, 120_000);

  it('measures WebGPU and wasm on the model after the start-up, trains on the faster, and reuses kept rates', async () => {
    const s = startSession(undefined, { gpu: dawn });
    const ready = await s.request(load(), 'ready');
    expect(ready.backend.kind).toBe('wasm');
    expect(ready.backend.autoPending?.measuring).toBe(true);
    const result = (await s.until(isMeasured)) as { backend: BackendInfo };
    const auto = result.backend.auto!;
    expect(auto.cached).toBe(false);
    expect(auto.note).toBeNull();
    expect(auto.choice.estimates.map((e) => e.backend)).toEqual(['webgpu', 'wasm']);
    for (const e of auto.choice.estimates) expect(Number.isFinite(e.step_s) && e.step_s > 0).toBe(true);
    const argmin = auto.choice.estimates.reduce((a, b) => (b.step_s < a.step_s ? b : a));
    expect(auto.choice.winner).toBe(argmin.backend);
    expect(result.backend.kind).toBe(argmin.backend);
    expect(auto.line).toMatch(new RegExp(`^auto -> ${argmin.backend}: [0-9.]+ ms/token, .*measured [0-9.]+ m?s\\)$`));
    expect(auto.key).toContain('model=local: tiny-qwen#');
    // the header's notice says why the CPU backend runs; on WebGPU there is none
    expect(result.backend.cpuReason).toBe(argmin.backend === 'webgpu' ? null : `${auto.line}.`);
    // the session trains on the winner
    expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(1);

    // a reload with the rates the page kept: the same choice at once, nothing measured
    const kept: CachedBackendRates = { key: auto.key, rates: auto.choice.estimates, measured_ms: 1234 };
    const lines = measuringLines(s.events).length;
    const again = await s.request(load({ autoRates: [kept] }), 'ready');
    expect(again.backend.kind).toBe(argmin.backend);
    expect(again.backend.autoPending).toBeUndefined();
    expect(again.backend.auto?.cached).toBe(true);
    expect(again.backend.auto?.choice.winner).toBe(auto.choice.winner);
    expect(again.backend.auto?.line).toMatch(/measured 1\.2 s, cached\)$/);

    // the model under the kept rates' winner: the step still trains, and nothing was measured
    expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(1);
    expect(measuringLines(s.events).length).toBe(lines);
    expect(measured(s.events)).toHaveLength(1);
  }, 120_000);

  it('without WebGPU measures the CPU backend alone and says why', async () => {
    const s = startSession(undefined, { gpu: undefined });
    const ready = await s.request(load(), 'ready');
    expect(ready.backend.kind).toBe('wasm');
    expect(ready.backend.autoPending?.line).toBe('auto -> wasm for now; measuring wasm on this model…');
    const auto = ((await s.until(isMeasured)) as { backend: BackendInfo }).backend.auto!;
    expect(auto.choice.estimates.map((e) => e.backend)).toEqual(['wasm']);
    expect(auto.note).toBe('webgpu not measured: this browser has no WebGPU (navigator.gpu is missing)');
    expect(auto.line).toMatch(/^auto -> wasm: .*webgpu not measured: this browser has no WebGPU/);
    expect(auto.key).toContain('gpu=no adapter');

    // rates kept under another key (another GPU or model) are not used; under this key they are, unless "remeasure"
    const kept: CachedBackendRates = { key: auto.key, rates: auto.choice.estimates, measured_ms: 10 };
    const other = await s.request(load({ autoRates: [{ ...kept, key: `${kept.key}x` }] }), 'ready');
    expect(other.backend.auto).toBeUndefined();
    expect(other.backend.autoPending?.measuring).toBe(true);
    await s.until((e) => measured(s.events).length === 2 && e === measured(s.events)[1]);
    const same = await s.request(load({ autoRates: [kept] }), 'ready');
    expect(same.backend.auto?.cached).toBe(true);
    const fresh = await s.request(load({ autoRates: [kept], remeasure: true }), 'ready');
    expect(fresh.backend.auto).toBeUndefined();
    await s.until((e) => measured(s.events).length === 3 && e === measured(s.events)[2]);
    expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(1);
    expect(measured(s.events)).toHaveLength(3);
  }, 60_000);

  it('a failed measurement keeps the CPU backend and says why', async () => {
    const s = startSession(undefined, {
      gpu: undefined,
      autoClock: () => {
        throw new Error('the clock stopped');
      },
    });
    await s.request(load(), 'ready');
    const failed = (await s.until((e) => e.type === 'backend' && e.backend.autoPending?.measuring === false)) as {
      backend: BackendInfo;
    };
    const line = 'auto -> wasm: the backends could not be measured (the clock stopped)';
    expect(failed.backend).toMatchObject({ kind: 'wasm', cpuReason: `${line}.`, autoPending: { line } });
    expect(failed.backend.auto).toBeUndefined();
    expect(s.events.filter((e) => e.type === 'error')).toEqual([]);
    expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(1);
  }, 60_000);

  it('an explicit backend measures nothing', async () => {
    const s = startSession(undefined, { gpu: dawn });
    const ready = await s.request(load({ backend: 'wasm' }), 'ready');
    expect(ready.backend.kind).toBe('wasm');
    expect(ready.backend.auto).toBeUndefined();
    expect(ready.backend.autoPending).toBeUndefined();
    await s.request({ type: 'step' }, 'step');
    expect(measuringLines(s.events)).toEqual([]);
    expect(s.events.filter((e) => e.type === 'backend')).toHaveLength(1);
  }, 60_000);

  it('keys the rates by adapter, model shape and weight storage', () => {
    const base = {
      architecture: 'qwen2' as const,
      hiddenSize: 64,
      intermediateSize: 128,
      numLayers: 2,
      numHeads: 4,
      numKvHeads: 2,
      headDim: 16,
      vocabSize: 300,
      rmsNormEps: 1e-6,
      ropeTheta: 1e4,
      maxPositionEmbeddings: 512,
      tieWordEmbeddings: true,
      attentionBias: true,
      bosTokenId: null,
      eosTokenIds: [2],
    };
    expect(modelShapeHash(base)).toBe(modelShapeHash({ ...base }));
    expect(modelShapeHash({ ...base, numLayers: 3 })).not.toBe(modelShapeHash(base));
    expect(autoKey('gpu=a', 'm', base)).not.toBe(autoKey('gpu=b', 'm', base));
    // the frozen base's storage changes the speed: f32 weights are kept apart from the default
    expect(autoKey('gpu=a', 'm', base, 'f32')).not.toBe(autoKey('gpu=a', 'm', base));
  });
});
