// The frozen ONNX agent's page state: the onnxModel link key (read, written, bad values explained), the frozen
// agent as a config field in the link, and the store's requests and its reaction to the worker's frozen-agent
// and ONNX-evaluation events.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { importRunFile } from '../../src/app/io/run-import.ts';
import { openRunsDb } from '../../src/app/persist/runs-db.ts';
import { decodeUrlState, encodeUrlState } from '../../src/app/url/url-state.ts';
import { syncUrl } from '../../src/app/url/url-sync.ts';
import { createPlaygroundStore } from '../../src/app/store/create-store.ts';
import type { OnnxInfo, TrainerClient, WorkerEvent, WorkerRequest } from '../../src/app/worker/protocol.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { metrics, rollout } from '../helpers/app/records.ts';

describe('onnxModel and frozenAgent in the URL', () => {
  it('round-trips a hub ONNX model with a revision next to a frozen reasoning agent', () => {
    const config = { ...getPreset('tiny-default'), frozenAgent: 'reasoning' as const };
    const onnxModel = { kind: 'hub' as const, repo: 'onnx-community/Qwen2.5-0.5B-Instruct', revision: 'v2' };
    const hash = encodeUrlState({ preset: 'tiny-default', config, view: 'curves', backend: 'auto', onnxModel });
    expect(hash).toContain('frozenAgent=reasoning');
    expect(new URLSearchParams(hash.slice(1)).get('onnxModel')).toBe('hub:onnx-community/Qwen2.5-0.5B-Instruct@v2');
    const back = decodeUrlState(hash);
    expect(back.errors).toEqual([]);
    expect(back.config.frozenAgent).toBe('reasoning');
    expect(back.onnxModel).toEqual(onnxModel);
  });

  it('the shipped tiny-rema export is the default and is left out of the link', () => {
    const s = decodeUrlState('#preset=tiny-default');
    expect(s.onnxModel).toEqual({ kind: 'embedded', name: 'tiny-rema' });
    expect(s.config.frozenAgent).toBe('none');
    const hash = encodeUrlState({
      preset: 'tiny-default',
      config: s.config,
      view: 'curves',
      backend: 'auto',
      onnxModel: s.onnxModel,
    });
    expect(hash).not.toContain('onnxModel');
    expect(decodeUrlState('#onnxModel=hub:org/name').onnxModel).toEqual({
      kind: 'hub',
      repo: 'org/name',
      revision: 'main',
    });
  });

  it.each([
    ['hub:not a repo', 'not a Hugging Face repository id'],
    ['hub:org/name@', 'empty revision'],
    ['embedded:no-such-model', 'no embedded ONNX model "no-such-model"'],
    ['local:my-export', 'cannot be reopened from a link'],
    ['org/name', 'must be embedded:<folder> or hub:<org/name>'],
  ])('onnxModel=%s is explained and falls back to the shipped model', (value, message) => {
    const s = decodeUrlState(`#preset=tiny-default&onnxModel=${encodeURIComponent(value)}`);
    expect(s.onnxModel).toEqual({ kind: 'embedded', name: 'tiny-rema' });
    expect(s.errors).toHaveLength(1);
    expect(s.errors[0]).toContain(message);
    expect(s.errors[0]).toMatch(/onnx/i);
  });

  it('a frozen agent in a single-agent mode is rejected by the config validator, naming the field', () => {
    const s = decodeUrlState('#preset=tiny-default&mode=vrp&steps=0&maxTurns=1&frozenAgent=meta');
    expect(s.config).toEqual(getPreset('tiny-default'));
    expect(s.errors.join('\n')).toContain('frozenAgent');
    expect(decodeUrlState('#frozenAgent=both').errors.join('\n')).toContain('frozenAgent');
  });
});

/** The transport only: records what the store sends and lets the test play the worker's side. */
function recordingClient() {
  const sent: WorkerRequest[] = [];
  const listeners = new Set<(e: WorkerEvent) => void>();
  const client: TrainerClient = {
    send: (r) => sent.push(r),
    subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
    terminate: () => {},
  };
  return { client, sent, emit: (e: WorkerEvent) => listeners.forEach((l) => l(e)) };
}

let dbCounter = 0;
async function setup() {
  const worker = recordingClient();
  const store = createPlaygroundStore(
    { createClient: () => worker.client, openDb: () => openRunsDb(`frozen-${dbCounter++}`) },
    {
      config: getPreset('tiny-default'),
      preset: 'tiny-default',
      view: 'curves',
      backendPreference: 'auto',
      modelSpec: { kind: 'embedded', name: 'tiny-rema' },
    },
  );
  await store.getState().start();
  worker.emit({
    type: 'ready',
    backend: { kind: 'wasm', description: 'wasm', f16: false, adapter: null, cpuReason: 'no WebGPU' },
    model: { name: 'tiny-rema', architecture: 'llama', parameters: 1e5, layers: 3, hiddenSize: 64, vocabSize: 300 },
    dataset: { name: 'tiny-arith', train: 100, heldOut: 8 },
  });
  return { store, worker };
}

const onnxInfo: OnnxInfo = {
  name: 'tiny-rema (ONNX)',
  architecture: 'llama',
  layers: 3,
  ep: 'wasm',
  runtime: 'onnxruntime-web 1.30.0 WASM EP',
  notice: null,
};

describe('the store and the frozen ONNX agent', () => {
  it('loads with the ONNX source; choosing a frozen agent starts a new run with it', async () => {
    const { store, worker } = await setup();
    expect(worker.sent[0]).toMatchObject({ type: 'load', onnxModel: { kind: 'embedded', name: 'tiny-rema' } });
    store.getState().setFrozenAgent('reasoning');
    const reset = worker.sent.at(-1)!;
    expect(reset.type).toBe('reset');
    if (reset.type === 'reset') {
      expect(reset.config.frozenAgent).toBe('reasoning');
      expect(reset.onnxModel).toEqual({ kind: 'embedded', name: 'tiny-rema' });
    }
    expect(store.getState().activeConfig.frozenAgent).toBe('reasoning');
    // the same choice again sends nothing
    const count = worker.sent.length;
    store.getState().setFrozenAgent('reasoning');
    expect(worker.sent).toHaveLength(count);
  });

  it('a frozen agent in a single-agent mode is refused with the validator message and nothing is sent', async () => {
    const { store, worker } = await setup();
    store.getState().applyPreset('vrp');
    const count = worker.sent.length;
    store.getState().setFrozenAgent('meta');
    expect(store.getState().configErrors.frozenAgent).toContain('two-agent mode');
    expect(store.getState().config.frozenAgent).toBe('none');
    expect(worker.sent).toHaveLength(count);
  });

  it('a new ONNX source loads at once without an agent frozen, and resets the run with one', async () => {
    const { store, worker } = await setup();
    const spec = { kind: 'hub' as const, repo: 'onnx-community/SmolLM2-135M-Instruct', revision: 'main' };
    store.getState().setOnnxModel(spec);
    expect(worker.sent.at(-1)).toEqual({ type: 'loadOnnx', onnxModel: spec });
    expect(store.getState().onnxModel).toEqual(spec);
    store.getState().setConfigField('frozenAgent', 'meta');
    store.getState().setOnnxModel({ kind: 'embedded', name: 'tiny-rema' });
    expect(worker.sent.at(-1)).toMatchObject({
      type: 'reset',
      onnxModel: { kind: 'embedded', name: 'tiny-rema' },
      config: { frozenAgent: 'meta' },
    });
  });

  it('after a fatal error a new ONNX source reloads the whole session', async () => {
    const { store, worker } = await setup();
    worker.emit({
      type: 'error',
      message: 'could not load the ONNX model "local: x": no ONNX model',
      fatal: true,
      requestId: null,
    });
    expect(store.getState().status).toBe('failed');
    const sent = worker.sent.length;
    store.getState().setOnnxModel({ kind: 'embedded', name: 'tiny-rema' });
    // a load (followed by the page's follow request)
    expect(worker.sent.slice(sent).find((m) => m.type === 'load')).toMatchObject({
      type: 'load',
      onnxModel: { kind: 'embedded', name: 'tiny-rema' },
    });
  });

  it('keeps what the worker reports: the frozen agent, its ONNX model and the VRP baseline', async () => {
    const { store, worker } = await setup();
    worker.emit({ type: 'frozen', role: 'reasoning', onnx: onnxInfo });
    expect(store.getState().frozen).toEqual({ role: 'reasoning', onnx: onnxInfo });
    store.getState().evaluateOnnx();
    expect(worker.sent.at(-1)).toMatchObject({
      type: 'evaluateOnnx',
      onnxModel: { kind: 'embedded', name: 'tiny-rema' },
      config: { name: 'tiny-default' },
    });
    const result = {
      onnx: onnxInfo,
      mode: 'vrp' as const,
      accuracy: 0.375,
      reward_mean: 0.2,
      n: 8,
      rollouts: [rollout(0, 0, 0)],
    };
    worker.emit({ type: 'onnxEvaluation', result });
    expect(store.getState().onnxEvaluation).toEqual(result);
    expect(store.getState().activity).toContain('37.5%');
    // the VRP baseline is not a point of the current run's curve
    expect(store.getState().currentRun?.evaluations ?? []).toEqual([]);
  });

  it('a run trained with a frozen agent records which ONNX model and runtime it was, and exports it', async () => {
    const { store, worker } = await setup();
    worker.emit({ type: 'step', metrics: metrics(1), rollouts: [] });
    expect(store.getState().currentRun?.frozenModel).toBeUndefined();
    store.getState().setFrozenAgent('reasoning');
    worker.emit({ type: 'frozen', role: 'reasoning', onnx: onnxInfo });
    worker.emit({ type: 'step', metrics: metrics(1), rollouts: [] });
    expect(store.getState().currentRun?.frozenModel).toBe(
      'reasoning: tiny-rema (ONNX) · onnxruntime-web 1.30.0 WASM EP',
    );
    const exported = { ...store.getState().currentRun!, format: 'rema-playground-run', version: 1 };
    expect(importRunFile(JSON.stringify(exported), 'run.json').frozenModel).toBe(
      'reasoning: tiny-rema (ONNX) · onnxruntime-web 1.30.0 WASM EP',
    );
  });

  it('the link follows the ONNX source', async () => {
    const { store } = await setup();
    const written: string[] = [];
    syncUrl(store, {
      get hash() {
        return written.at(-1) ?? '';
      },
      replace: (h) => written.push(h),
    });
    store.getState().setOnnxModel({ kind: 'hub', repo: 'org/onnx-model', revision: 'main' });
    expect(decodeUrlState(written.at(-1)!).onnxModel).toEqual({
      kind: 'hub',
      repo: 'org/onnx-model',
      revision: 'main',
    });
  });
});
