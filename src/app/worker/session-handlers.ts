// One handler per worker request type (the WorkerRequest union of protocol.ts): the map's type makes a request
// type without a handler, or a handler for a request that does not exist, a type error. Handlers queue jobs
// (session-jobs.ts), which own the status; the domain work lives in rl/ (the trainer, plan interventions).
import { validateConfig } from '../../rl/config.ts';
import { followPlan, interventionProblem } from '../../rl/intervention.ts';
import type { WorkerRequest } from './protocol.ts';
import { backendInUse, scheduleAutoMeasure } from './session-auto.ts';
import { calibrateRequest } from './session-calibrate.ts';
import { loadModel } from './session-model.ts';
import { sftAdoptRequest, sftRequest, sftStopRequest } from './session-sft.ts';
import type { SessionState } from './session-state.ts';
import { buildTrainer, emitFrozen, ensureOnnx, evaluateOnnx } from './session-trainer.ts';
import { runNotMoved } from './session-device-loss.ts';
import { evaluateActive, runStep, scheduleBaseline, scheduleFollow, scheduleTraining } from './session-work.ts';

export type RequestType = WorkerRequest['type'];
export type RequestOf<K extends RequestType> = Extract<WorkerRequest, { type: K }>;
export type RequestHandlers = { readonly [K in RequestType]: (s: SessionState, request: RequestOf<K>) => void };

export const REQUEST_HANDLERS: RequestHandlers = {
  load(s, request) {
    // queued work for the old model is dropped; a step already running finishes first
    s.jobs.dropQueued();
    s.wantTraining = false;
    if (request.onnxModel) s.onnxModel = request.onnxModel;
    s.jobs.enqueue(
      async (busy) => {
        busy('loading');
        s.active?.policy.dispose();
        s.active = null;
        s.loaded?.backend.destroy();
        s.loaded = null;
        const config = validateConfig(request.config, 'config', undefined);
        s.loaded = await loadModel(
          request.model,
          {
            preference: request.backend,
            config,
            ...(request.autoRates ? { autoRates: request.autoRates } : {}),
            ...(request.remeasure ? { remeasure: true } : {}),
            ...(request.weights ? { weights: request.weights } : {}),
          },
          s.env,
          s.emit,
        );
        s.active = {
          ...(await buildTrainer(s, config, busy)),
          ...(request.run !== undefined ? { run: request.run } : {}),
        };
        s.emit({ type: 'ready', backend: backendInUse(s), model: s.loaded.model, dataset: s.active.dataset });
        emitFrozen(s);
      },
      { fatal: true },
    );
    scheduleFollow(s);
    scheduleBaseline(s);
    // "auto" without kept rates: the backends are measured after the first rollouts, before any step
    scheduleAutoMeasure(s);
  },

  reset(s, request) {
    s.wantTraining = false;
    s.jobs.enqueue(
      async (busy) => {
        if (request.onnxModel) s.onnxModel = request.onnxModel;
        try {
          s.active = await buildTrainer(s, validateConfig(request.config, 'config', undefined), busy);
        } finally {
          // the trainer that runs from now on (the new one, or the old one when the new one could not be built) is
          // the page's new run; a step that was running before this job ended with the old id
          if (s.active) s.active.run = request.run;
        }
        emitFrozen(s);
        s.emit({ type: 'activity', step: 0, text: 'reset: new run from the model weights' });
      },
      // a trainer that could not be rebuilt (e.g. a bad ONNX folder) leaves the one before it running
      { fatal: () => !s.active },
    );
    scheduleFollow(s);
    scheduleBaseline(s);
  },

  train(s) {
    if (s.wantTraining) return;
    s.wantTraining = true;
    scheduleTraining(s);
  },

  pause(s) {
    s.wantTraining = false;
  },

  step(s) {
    s.jobs.enqueue(
      async (busy) => {
        busy('stepping');
        await runStep(s);
      },
      // a lost device's run that could not be moved leaves no trainer: the session needs a new load
      { fatal: () => runNotMoved(s) },
    );
  },

  evaluate(s) {
    s.jobs.enqueue((busy) => evaluateActive(s, busy), { fatal: () => runNotMoved(s) });
  },

  loadOnnx(s, request) {
    s.jobs.enqueue(
      async (busy) => {
        s.onnxModel = request.onnxModel;
        await ensureOnnx(s, busy);
        emitFrozen(s);
      },
      { rest: () => (s.active ? 'idle' : 'failed') },
    );
  },

  evaluateOnnx(s, request) {
    s.jobs.enqueue(
      async (busy) => {
        s.onnxModel = request.onnxModel;
        s.emit({ type: 'onnxEvaluation', result: await evaluateOnnx(s, request.config, busy) });
      },
      { rest: () => (s.active ? 'idle' : 'failed') },
    );
  },

  intervene(s, request) {
    s.jobs.enqueue(
      async () => {
        const { active, loaded } = s;
        if (!active || !loaded) throw new Error('no model is loaded');
        const problem = interventionProblem(request.question, request.gold, active.config);
        const frozen = active.frozen && {
          ...active.frozen,
          maxContext: active.frozen.maxContext ?? Number.POSITIVE_INFINITY,
        };
        // graded by the session's checker (the page: its own worker), as steps are: the training worker never loads the LaTeX parser
        const checker = s.env.checker ? { checker: s.env.checker } : {};
        const ctx = {
          policy: active.policy,
          tokenizer: loaded.tokenizer,
          config: active.config,
          maxContext: loaded.checkpoint.config.maxPositionEmbeddings,
          frozen,
          ...checker,
        };
        const edited = await followPlan(ctx, problem, request.plan);
        const original = await followPlan(ctx, problem, request.originalPlan);
        const result = {
          question: request.question,
          gold: request.gold,
          edited,
          original,
          step: active.trainer.state().step,
        };
        s.emit({ type: 'intervention', requestId: request.requestId, result });
      },
      { rest: null, requestId: request.requestId },
    );
  },

  calibrate: calibrateRequest,

  exportLora(s, request) {
    s.jobs.enqueue(
      async () => {
        if (!s.active) throw new Error('no trainer: load a model first');
        const files: Record<string, Uint8Array> = {};
        const names = s.active.policy.adapters;
        for (const name of names) {
          const saved = await s.active.policy.saveAdapter(name);
          for (const [path, bytes] of Object.entries(saved)) files[names.length > 1 ? `${name}/${path}` : path] = bytes;
        }
        s.emit({ type: 'lora', requestId: request.requestId, files });
      },
      { rest: null, requestId: request.requestId },
    );
  },

  follow(s, request) {
    const changed = request.index !== s.follow.index;
    s.follow = {
      index: request.index,
      every: Math.max(0, Math.floor(request.every)),
      ...(request.minIntervalMs !== undefined ? { minIntervalMs: request.minIntervalMs } : {}),
    };
    if (changed && s.active) scheduleFollow(s);
  },

  sft: sftRequest,
  sftStop: sftStopRequest,
  sftAdopt: sftAdoptRequest,
};
