// Session slice: the worker's life cycle (load, train, pause, step, reset, crash) and what it reports
// (backend, model, dataset, progress, errors, interventions, adapter files).
import type { StateCreator } from 'zustand/vanilla';
import { persist, type StoreContext } from './context.ts';
import type { PlaygroundState, SessionSlice } from './types.ts';
import type { WorkerRequest } from '../worker/protocol.ts';
import { markStartup } from '../util/startup-marks.ts';
import { markStep } from '../util/step-marks.ts';

export function createSessionSlice(ctx: StoreContext): StateCreator<PlaygroundState, [], [], SessionSlice> {
  const send = (request: WorkerRequest) => {
    if (!ctx.client) throw new Error('the training worker is not running');
    ctx.client.send(request);
  };

  return (set, get) => {
    const connect = () => {
      ctx.unsubscribe?.();
      ctx.client?.terminate();
      ctx.client = ctx.deps.createClient();
      ctx.unsubscribe = ctx.client.subscribe((e) => get().internal_onEvent(e));
    };

    const load = (remeasure = false) => {
      const { modelSpec, backendPreference, weightPrecision, config, onnxModel } = get();
      // "auto": the measurements kept from earlier loads, so a known adapter and model are not measured again
      const auto =
        backendPreference === 'auto'
          ? { autoRates: ctx.deps.backendRates?.list() ?? [], ...(remeasure ? { remeasure } : {}) }
          : {};
      // a fatal error belongs to the old session; other messages (e.g. a bad link) stay until dismissed
      const error = get().error?.fatal ? null : get().error;
      set({ status: 'loading', backend: null, model: null, error, progress: null, wantsTraining: false });
      set({ currentRun: null, configDirty: false, activeConfig: config });
      const weights = weightPrecision === 'auto' ? {} : { weights: weightPrecision };
      send({
        type: 'load',
        model: modelSpec,
        backend: backendPreference,
        config,
        onnxModel,
        run: ++ctx.run,
        ...auto,
        ...weights,
      });
      send({ type: 'follow', index: get().followIndex, every: get().followEvery });
    };

    return {
      status: 'loading',
      wantsTraining: false,
      backend: null,
      model: null,
      dataset: null,
      progress: null,
      activity: null,
      error: null,
      intervention: { pending: false, result: null, error: null },
      frozen: { role: null, onnx: null },
      onnxEvaluation: null,

      async start() {
        // the worker first: its module graph, the backend and the model load while the runs database opens
        try {
          connect();
          load();
        } catch (e) {
          set({
            status: 'failed',
            error: { message: `could not start the training worker: ${(e as Error).message}`, fatal: true },
          });
        }
        ctx.db = ctx.deps.openDb().catch((e) => {
          set({ error: { message: `saved runs are unavailable (IndexedDB: ${(e as Error).message})`, fatal: false } });
          return null;
        });
        const db = await ctx.db;
        if (db) {
          // runs created while the database was opening (the first steps, an early import) stay in front
          // a run saved as running was cut off by a reload or a closed tab: it is stopped now
          const stored = await db.list();
          const cutOff = stored
            .filter((r) => r.status === 'running')
            .map((r) => ({ ...r, status: 'stopped' as const }));
          for (const r of cutOff) void persist(ctx, (d) => d.put(r));
          stored.splice(0, stored.length, ...stored.map((r) => cutOff.find((c) => c.id === r.id) ?? r));
          const fresh = get().runs.filter((r) => !stored.some((s) => s.id === r.id));
          set({ runs: [...fresh, ...stored] });
        }
      },
      train() {
        set({ wantsTraining: true });
        send({ type: 'train' });
      },
      pause() {
        set({ wantsTraining: false });
        send({ type: 'pause' });
      },
      step() {
        send({ type: 'step' });
      },
      reset() {
        const previous = get().currentRun;
        if (previous) {
          const stopped = { ...previous, status: 'stopped' as const };
          set({ runs: get().runs.map((r) => (r.id === stopped.id ? stopped : r)) });
          void persist(ctx, (db) => db.put(stopped));
        }
        set({ currentRun: null, wantsTraining: false, configDirty: false, activity: null, activeConfig: get().config });
        send({ type: 'reset', config: get().config, onnxModel: get().onnxModel, run: ++ctx.run });
      },
      evaluate() {
        send({ type: 'evaluate' });
      },
      loadModel(spec) {
        set({
          modelSpec: spec,
          config: { ...get().config, modelSource: spec.kind, model: spec.kind === 'hub' ? spec.repo : spec.name },
        });
        load();
      },
      remeasureBackend() {
        load(true);
      },
      setFrozenAgent(role) {
        get().setConfigField('frozenAgent', role);
        if (get().configErrors.frozenAgent || get().activeConfig.frozenAgent === role) return;
        if (get().status === 'failed') load();
        else get().reset();
      },
      setOnnxModel(spec) {
        set({ onnxModel: spec });
        if (get().status === 'failed') load();
        else if (get().config.frozenAgent !== 'none') get().reset();
        else send({ type: 'loadOnnx', onnxModel: spec });
      },
      evaluateOnnx() {
        send({ type: 'evaluateOnnx', config: get().config, onnxModel: get().onnxModel });
      },
      restartWorker() {
        connect();
        load();
      },
      intervene(question, gold, plan, originalPlan) {
        const requestId = ctx.nextRequestId++;
        ctx.interventionRequestId = requestId;
        set({ intervention: { pending: true, result: null, error: null } });
        send({ type: 'intervene', requestId, question, gold, plan, originalPlan });
      },
      exportLora() {
        const requestId = ctx.nextRequestId++;
        return new Promise((resolve, reject) => {
          ctx.loraRequests.set(requestId, { resolve, reject });
          send({ type: 'exportLora', requestId });
        });
      },
      dismissError() {
        set({ error: null });
      },

      internal_onEvent(e) {
        get().internal_ablationEvent(e);
        // results of a run the page has left (a step that was running when Reset was pressed) are not this run's
        if (
          (e.type === 'step' || e.type === 'evaluation' || e.type === 'followed') &&
          e.run !== undefined &&
          e.run !== ctx.run
        )
          return;
        switch (e.type) {
          case 'progress':
            set({ progress: { part: e.part, file: e.file, loaded: e.loaded, total: e.total } });
            break;
          case 'backend': {
            markStartup('backend');
            set({ backend: e.backend });
            get().internal_recordBackend(e.backend);
            const auto = e.backend.auto;
            // the measurement's result (it comes after the first rollout): kept for the next load
            if (auto && !auto.cached) {
              markStartup('auto-measured');
              ctx.deps.backendRates?.put({
                key: auto.key,
                rates: auto.choice.estimates,
                measured_ms: auto.choice.measured_ms,
              });
            }
            break;
          }
          case 'ready':
            markStartup('ready');
            set({ backend: e.backend, model: e.model, dataset: e.dataset, progress: null, status: 'idle' });
            break;
          case 'status':
            set({ status: e.status, ...(e.status === 'idle' ? { activity: null, progress: null } : {}) });
            break;
          case 'stopped':
            set({ wantsTraining: false });
            break;
          case 'activity':
            set({ activity: e.text });
            break;
          case 'step': {
            const received = performance.now();
            get().internal_recordStep(e.metrics, e.rollouts);
            if (e.explain) get().internal_recordExplain(e.explain);
            markStep({
              step: e.metrics.step,
              received_at: performance.timeOrigin + received,
              record_ms: performance.now() - received,
              timing: e.timing ?? null,
              time_s: e.metrics.time_s,
              explain_s: e.explain?.rescoreSeconds ?? 0,
            });
            break;
          }
          case 'evaluation':
            markStartup('first-eval');
            markStartup('first-rollout');
            get().internal_recordEvaluation(
              {
                step: e.step,
                accuracy: e.accuracy,
                reward_mean: e.reward_mean,
                n: e.n,
                ...(e.context_limited
                  ? {
                      context_limited: e.context_limited,
                      context_length: e.context_length,
                      context_prompt_tokens: e.context_prompt_tokens,
                    }
                  : {}),
              },
              e.rollouts,
            );
            set({
              activity: `held-out accuracy ${(e.accuracy * 100).toFixed(1)}% at step ${e.step} (${e.n} problems)`,
            });
            break;
          case 'frozen':
            set({ frozen: { role: e.role, onnx: e.onnx } });
            break;
          case 'onnxEvaluation':
            set({
              onnxEvaluation: e.result,
              activity: `ONNX VRP baseline ${(e.result.accuracy * 100).toFixed(1)}% (${e.result.n} problems, ${e.result.onnx.runtime})`,
            });
            break;
          case 'intervention':
            if (e.requestId === ctx.interventionRequestId)
              set({ intervention: { pending: false, result: e.result, error: null } });
            break;
          case 'followed':
            get().internal_recordFollowed(e.rollout);
            break;
          case 'calibration':
            get().internal_recordCalibration(e);
            break;
          case 'lora': {
            ctx.loraRequests.get(e.requestId)?.resolve(e.files);
            ctx.loraRequests.delete(e.requestId);
            break;
          }
          case 'sftStep':
          case 'sftDone':
          case 'sftAdopted':
            get().internal_sftEvent(e);
            break;
          case 'error': {
            get().internal_sftEvent(e);
            if (e.requestId !== null) get().internal_calibrationFailed(e.requestId, e.message);
            if (e.requestId !== null && ctx.loraRequests.has(e.requestId)) {
              ctx.loraRequests.get(e.requestId)?.reject(new Error(e.message));
              ctx.loraRequests.delete(e.requestId);
            }
            if (e.requestId !== null && e.requestId === ctx.interventionRequestId) {
              set({ intervention: { pending: false, result: null, error: e.message } });
            }
            set({ error: { message: e.message, fatal: e.fatal, ...(e.continuable ? { continuable: true } : {}) } });
            if (e.fatal) {
              set({ status: 'failed', wantsTraining: false, activity: null, progress: null });
              const run = get().currentRun;
              if (run) {
                const crashed = { ...run, status: 'crashed' as const, updatedAt: Date.now() };
                set({ currentRun: crashed, runs: get().runs.map((r) => (r.id === crashed.id ? crashed : r)) });
                void persist(ctx, (db) => db.put(crashed));
              }
            }
            break;
          }
          default:
            e satisfies never;
        }
      },
    };
  };
}
