// The store's reaction to the worker protocol: requests it sends, how step events become a saved run (in
// IndexedDB, via fake-indexeddb), how a worker crash keeps the run, config validation and overlays.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openRunsDb } from '../../../src/app/persist/runs-db.ts';
import { createPlaygroundStore } from '../../../src/app/store/create-store.ts';
import type { TrainerClient, WorkerEvent, WorkerRequest } from '../../../src/app/worker/protocol.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { metrics, rollout } from '../../helpers/app/records.ts';

/** The transport only: records what the store sends and lets the test play the worker's side. */
function recordingClient() {
  const sent: WorkerRequest[] = [];
  const listeners = new Set<(e: WorkerEvent) => void>();
  const client: TrainerClient = {
    send: (r) => sent.push(r),
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    terminate: () => {},
  };
  return { client, sent, emit: (e: WorkerEvent) => listeners.forEach((l) => l(e)) };
}

let dbCounter = 0;
async function setup() {
  const worker = recordingClient();
  const dbName = `test-${dbCounter++}`;
  const store = createPlaygroundStore(
    { createClient: () => worker.client, openDb: () => openRunsDb(dbName) },
    {
      config: getPreset('tiny-default'),
      preset: 'tiny-default',
      view: 'curves',
      backendPreference: 'wasm',
      modelSpec: { kind: 'embedded', name: 'tiny-rema' },
    },
  );
  await store.getState().start();
  const ready: WorkerEvent = {
    type: 'ready',
    backend: {
      kind: 'cpu',
      description: 'JavaScript',
      f16: false,
      adapter: null,
      cpuReason: 'chosen in the backend menu.',
    },
    model: { name: 'tiny-rema', architecture: 'llama', parameters: 1e6, layers: 2, hiddenSize: 64, vocabSize: 300 },
    dataset: { name: 'tiny-arith', train: 100, heldOut: 20 },
  };
  worker.emit(ready);
  return { store, worker, dbName };
}

/** IndexedDB writes are queued behind the store's updates; give them time on a loaded machine */
const flush = () => new Promise((r) => setTimeout(r, 150));

describe('playground store', () => {
  it('loads on start with the config, model and backend preference', async () => {
    const { store, worker } = await setup();
    expect(worker.sent[0]).toMatchObject({
      type: 'load',
      backend: 'wasm',
      model: { kind: 'embedded', name: 'tiny-rema' },
    });
    expect(store.getState().status).toBe('idle');
    expect(store.getState().backend?.kind).toBe('cpu');
  });

  it('turns step events into one saved run that survives a new store (reload)', async () => {
    const { store, worker, dbName } = await setup();
    store.getState().train();
    expect(worker.sent.at(-1)).toEqual({ type: 'train' });
    worker.emit({ type: 'status', status: 'training' });
    worker.emit({ type: 'step', metrics: metrics(1), rollouts: [rollout(1, 0, 0), rollout(1, 0, 1)] });
    worker.emit({ type: 'step', metrics: metrics(2), rollouts: [rollout(2, 0, 0)] });
    const run = store.getState().currentRun!;
    expect(run.metrics.map((m) => m.step)).toEqual([1, 2]);
    expect(run.rollouts).toHaveLength(1);
    expect(run.status).toBe('running');
    expect(store.getState().runs).toHaveLength(1);
    await flush();
    const reopened = await (await openRunsDb(dbName)).list();
    expect(reopened.map((r) => r.id)).toEqual([run.id]);
    expect(reopened[0].metrics).toHaveLength(2);
    expect(reopened[0].config).toEqual(getPreset('tiny-default'));
    // a new page (store) on the same database lists the run, no longer running
    const worker2 = recordingClient();
    const reloaded = createPlaygroundStore(
      { createClient: () => worker2.client, openDb: () => openRunsDb(dbName) },
      {
        config: getPreset('tiny-default'),
        preset: 'tiny-default',
        view: 'runs',
        backendPreference: 'wasm',
        modelSpec: { kind: 'embedded', name: 'tiny-rema' },
      },
    );
    await reloaded.getState().start();
    expect(reloaded.getState().runs.map((r) => [r.id, r.status])).toEqual([[run.id, 'stopped']]);
    expect(reloaded.getState().currentRun).toBeNull();
  });

  it('a run moved to another backend (a lost GPU device) names both in its saved label', async () => {
    const { store, worker, dbName } = await setup();
    const gpu = { kind: 'webgpu' as const, description: 'some gpu', f16: true, adapter: 'some gpu', cpuReason: null };
    worker.emit({ type: 'backend', backend: gpu });
    worker.emit({ type: 'step', metrics: metrics(1), rollouts: [] });
    expect(store.getState().currentRun!.backend).toBe('WebGPU: some gpu');
    worker.emit({ type: 'backend', backend: gpu }); // the same backend again: unchanged
    worker.emit({ type: 'backend', backend: { ...gpu, description: 'another gpu' } }); // a new device of the kind
    expect(store.getState().currentRun!.backend).toBe('WebGPU: another gpu');
    worker.emit({ type: 'backend', backend: gpu });
    const wasm = {
      kind: 'wasm' as const,
      description: 'wasm (2 threads)',
      f16: false,
      adapter: null,
      cpuReason: 'lost',
    };
    worker.emit({ type: 'backend', backend: wasm });
    worker.emit({ type: 'step', metrics: metrics(2), rollouts: [] });
    expect(store.getState().currentRun!.backend).toBe('WebGPU: some gpu → wasm (2 threads)');
    await flush();
    expect((await (await openRunsDb(dbName)).list())[0].backend).toBe('WebGPU: some gpu → wasm (2 threads)');
  });

  it('an evaluation before training creates the run and a held-out point at step 0', async () => {
    const { store, worker } = await setup();
    worker.emit({ type: 'evaluation', step: 0, accuracy: 0.25, reward_mean: 0.25, n: 4, rollouts: [rollout(0, 0, 0)] });
    const run = store.getState().currentRun!;
    expect(run.metrics).toEqual([]);
    expect(run.evaluations).toEqual([{ step: 0, accuracy: 0.25, reward_mean: 0.25, n: 4 }]);
    expect(run.evalRollouts).toHaveLength(1);
    worker.emit({ type: 'step', metrics: metrics(1), rollouts: [] });
    expect(store.getState().currentRun!.id).toBe(run.id);
    expect(store.getState().currentRun!.evaluations).toHaveLength(1);
  });

  it('a worker crash marks the run crashed, keeps it, and stops training', async () => {
    const { store, worker, dbName } = await setup();
    store.getState().train();
    worker.emit({ type: 'step', metrics: metrics(1), rollouts: [] });
    worker.emit({ type: 'error', message: 'training worker crashed: out of memory', fatal: true, requestId: null });
    expect(store.getState().status).toBe('failed');
    expect(store.getState().wantsTraining).toBe(false);
    expect(store.getState().error?.message).toContain('out of memory');
    await flush();
    const saved = await (await openRunsDb(dbName)).list();
    expect(saved[0].status).toBe('crashed');
    expect(saved[0].metrics).toHaveLength(1);
  });

  it('reset starts a new run with the edited config', async () => {
    const { store, worker } = await setup();
    worker.emit({ type: 'step', metrics: metrics(1), rollouts: [] });
    const first = store.getState().currentRun!.id;
    store.getState().setConfigField('groupSize', 4);
    expect(store.getState().configDirty).toBe(true);
    store.getState().reset();
    expect(worker.sent.at(-1)).toMatchObject({ type: 'reset', config: { groupSize: 4 } });
    expect(store.getState().currentRun).toBeNull();
    worker.emit({ type: 'step', metrics: metrics(1), rollouts: [] });
    expect(store.getState().currentRun!.id).not.toBe(first);
    expect(store.getState().runs.find((r) => r.id === first)?.status).toBe('stopped');
  });

  it('rejects an invalid knob value with the validator message and keeps the old value', async () => {
    const { store } = await setup();
    store.getState().setConfigField('clipLow', 1.5);
    expect(store.getState().config.clipLow).toBe(0.2);
    expect(store.getState().configErrors.clipLow).toMatch(/clipLow/);
    store.getState().setConfigField('clipLow', 0.1);
    expect(store.getState().configErrors.clipLow).toBeUndefined();
  });

  it('imports a CLI metrics.jsonl as an overlaid run; a bad file shows an error', async () => {
    const { store } = await setup();
    await store.getState().importRun('{"step":1,"reward_mean":0.2}\n{"step":2,"reward_mean":0.4}\n', 'metrics.jsonl');
    const imported = store.getState().runs[0];
    expect(imported.status).toBe('imported');
    expect(store.getState().overlayIds).toEqual([imported.id]);
    await store.getState().importRun('not json', 'bad.jsonl');
    expect(store.getState().error?.message).toContain('bad.jsonl line 1');
  });

  it('routes adapter files and intervention results to their requests', async () => {
    const { store, worker } = await setup();
    const pending = store.getState().exportLora();
    const req = worker.sent.at(-1) as Extract<WorkerRequest, { type: 'exportLora' }>;
    worker.emit({
      type: 'lora',
      requestId: req.requestId,
      files: { 'adapter_config.json': new Uint8Array([123, 125]) },
    });
    expect(Object.keys(await pending)).toEqual(['adapter_config.json']);

    store.getState().intervene('q', '5', 'my plan', 'old plan');
    const ireq = worker.sent.at(-1) as Extract<WorkerRequest, { type: 'intervene' }>;
    expect(ireq).toMatchObject({ plan: 'my plan', originalPlan: 'old plan' });
    worker.emit({ type: 'error', message: 'no model', fatal: false, requestId: ireq.requestId });
    expect(store.getState().intervention).toEqual({ pending: false, result: null, error: 'no model' });
  });
});
