// The worker session's "auto" backend (backend-auto.ts) on the real engine: with Dawn's WebGPU (SwiftShader here)
// it measures WebGPU and the WebAssembly backend on the loaded model, trains on the one with the shortest estimated
// step and reports what it measured; rates the page kept under the same key are used without measuring (another
// key's are not, and "remeasure" measures anyway); without WebGPU it measures the backend it has and says why WebGPU
// was not; an explicit choice measures nothing.
import { create, globals } from 'webgpu';
import { describe, expect, it } from 'vitest';
import { autoKey, modelShapeHash } from '../../src/app/worker/backend-auto.ts';
import type { CachedBackendRates, WorkerEvent, WorkerRequest } from '../../src/app/worker/protocol.ts';
import { fixtureConfig, folderFiles, startSession, TINY_QWEN_FOLDER } from './session-driver.ts';

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

const measuring = (events: WorkerEvent[]) =>
  events.filter((e) => e.type === 'progress' && e.stage.startsWith('auto backend: measuring'));

describe('auto backend', () => {
  it('measures WebGPU and wasm on the model, trains on the faster, and reuses kept rates', async () => {
    const s = startSession(undefined, { gpu: dawn });
    const ready = await s.request(load(), 'ready');
    const auto = ready.backend.auto!;
    expect(auto.cached).toBe(false);
    expect(auto.note).toBeNull();
    expect(auto.choice.estimates.map((e) => e.backend)).toEqual(['webgpu', 'wasm']);
    for (const e of auto.choice.estimates) expect(Number.isFinite(e.step_s) && e.step_s > 0).toBe(true);
    const argmin = auto.choice.estimates.reduce((a, b) => (b.step_s < a.step_s ? b : a));
    expect(auto.choice.winner).toBe(argmin.backend);
    expect(ready.backend.kind).toBe(argmin.backend);
    expect(auto.line).toMatch(new RegExp(`^auto -> ${argmin.backend}: [0-9.]+ ms/token, .*measured [0-9.]+ m?s\\)$`));
    expect(auto.key).toContain('model=local: tiny-qwen#');
    expect(measuring(s.events).map((e) => (e as { stage: string }).stage)).toEqual([
      'auto backend: measuring webgpu',
      'auto backend: measuring wasm',
    ]);
    // the header's notice says why the CPU backend runs; on WebGPU there is none
    expect(ready.backend.cpuReason).toBe(argmin.backend === 'webgpu' ? null : `${auto.line}.`);
    // the session trains on the winner
    expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(1);

    // a reload with the rates the page kept: the same choice, nothing measured
    const kept: CachedBackendRates = { key: auto.key, rates: auto.choice.estimates, measured_ms: 1234 };
    const before = measuring(s.events).length;
    const again = await s.request(load({ autoRates: [kept] }), 'ready');
    expect(again.backend.auto?.cached).toBe(true);
    expect(again.backend.auto?.choice.winner).toBe(auto.choice.winner);
    expect(again.backend.auto?.line).toMatch(/measured 1\.2 s, cached\)$/);
    expect(measuring(s.events).length).toBe(before);

    // the model under the kept rates' winner: the step still trains
    expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(1);
  }, 120_000);

  it('without WebGPU measures the CPU backend alone and says why', async () => {
    const s = startSession(undefined, { gpu: undefined });
    const ready = await s.request(load(), 'ready');
    const auto = ready.backend.auto!;
    expect(ready.backend.kind).toBe('wasm');
    expect(auto.choice.estimates.map((e) => e.backend)).toEqual(['wasm']);
    expect(auto.note).toBe('webgpu not measured: this browser has no WebGPU (navigator.gpu is missing)');
    expect(auto.line).toMatch(/^auto -> wasm: .*webgpu not measured: this browser has no WebGPU/);
    expect(auto.key).toContain('gpu=no adapter');

    // rates kept under another key (another GPU or model) are not used; under this key they are, unless "remeasure"
    const kept: CachedBackendRates = { key: auto.key, rates: auto.choice.estimates, measured_ms: 10 };
    const before = measuring(s.events).length;
    const other = await s.request(load({ autoRates: [{ ...kept, key: `${kept.key}x` }] }), 'ready');
    expect(other.backend.auto?.cached).toBe(false);
    const same = await s.request(load({ autoRates: [kept] }), 'ready');
    expect(same.backend.auto?.cached).toBe(true);
    const fresh = await s.request(load({ autoRates: [kept], remeasure: true }), 'ready');
    expect(fresh.backend.auto?.cached).toBe(false);
    expect(measuring(s.events).length).toBe(before + 2);
  }, 60_000);

  it('an explicit backend measures nothing', async () => {
    const s = startSession(undefined, { gpu: dawn });
    const ready = await s.request(load({ backend: 'cpu' }), 'ready');
    expect(ready.backend.kind).toBe('wasm');
    expect(ready.backend.auto).toBeUndefined();
    expect(measuring(s.events)).toEqual([]);
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
