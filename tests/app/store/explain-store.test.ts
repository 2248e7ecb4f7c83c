// The store's explain slice: step events that carry an explain record keep the latest 50 of the current run,
// openExplain picks the asked step (or the nearest recorded one before it, or the latest), a new run's records
// replace the old run's, and a view opened before any record shows the first one that arrives.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openRunsDb } from '../../../src/app/persist/runs-db.ts';
import { createPlaygroundStore } from '../../../src/app/store/create-store.ts';
import { EXPLAIN_KEEP } from '../../../src/app/store/explain-slice.ts';
import type { TrainerClient, WorkerEvent } from '../../../src/app/worker/protocol.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import type { ExplainRecord } from '../../../src/rl/train/explain.ts';
import { metrics } from '../../helpers/app/records.ts';

let dbCounter = 0;
async function setup() {
  const listeners = new Set<(e: WorkerEvent) => void>();
  const client: TrainerClient = {
    send: () => {},
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    terminate: () => {},
  };
  const store = createPlaygroundStore(
    { createClient: () => client, openDb: () => openRunsDb(`explain-${dbCounter++}`) },
    {
      config: getPreset('tiny-default'),
      preset: 'tiny-default',
      view: 'curves',
      backendPreference: 'wasm',
      modelSpec: { kind: 'embedded', name: 'tiny-rema' },
    },
  );
  await store.getState().start();
  return { store, emit: (e: WorkerEvent) => listeners.forEach((l) => l(e)) };
}

function record(step: number): ExplainRecord {
  return {
    step,
    settings: {
      advantage: 'grpo',
      stdScaling: 'group',
      advEps: 1e-6,
      ratio: 'token',
      clipLow: 0.2,
      clipHigh: 0.2,
      aggregation: 'token-mean',
      miniBatches: 1,
      ppoEpochs: 1,
      klBeta: 0,
      entropyCoef: 0,
      gradClip: 1,
      temperature: 1,
    },
    groups: [],
    optimizerSteps: [],
    gradNorm: step / 10,
    rescoreSeconds: 0.01,
  };
}

const step = (n: number, explain = true): WorkerEvent => ({
  type: 'step',
  metrics: metrics(n),
  rollouts: [],
  ...(explain ? { explain: record(n) } : {}),
});

describe('explain slice', () => {
  it('keeps the last 50 records and opens the asked, nearest earlier or latest step', async () => {
    const { store, emit } = await setup();
    for (let n = 1; n <= EXPLAIN_KEEP + 10; n++) emit(step(n, n !== 30));
    const steps = store.getState().explains.map((r) => r.step);
    expect(steps).toHaveLength(EXPLAIN_KEEP);
    expect(steps[0]).toBe(10);
    expect(steps.at(-1)).toBe(EXPLAIN_KEEP + 10);
    expect(store.getState().explainStep).toBeNull();
    store.getState().openExplain(20);
    expect(store.getState().explainStep).toBe(20);
    // step 30 had no record: the one before it
    store.getState().openExplain(30);
    expect(store.getState().explainStep).toBe(29);
    store.getState().setExplainScreen(3);
    store.getState().openExplain();
    expect(store.getState().explainStep).toBe(EXPLAIN_KEEP + 10);
    expect(store.getState().explainScreen).toBe(0);
    store.getState().closeExplain();
    expect(store.getState().explainStep).toBeNull();
  });

  it('a new run replaces the records; opened before any record, the view waits for the first', async () => {
    const { store, emit } = await setup();
    store.getState().openExplain(5);
    expect(store.getState().explainStep).toBe(-1);
    emit(step(1));
    expect(store.getState().explainStep).toBe(1);
    emit(step(2));
    emit(step(1));
    expect(store.getState().explains.map((r) => r.step)).toEqual([1]);
  });
});
