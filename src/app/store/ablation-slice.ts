// Ablation slice: runs an ablation (src/rl/ablation.ts: fields x values x seeds on the page's config) one run
// after another in the training worker, through the worker's own requests (reset with the run's config, then
// train until the config's steps are done), and keeps every run's curves in IndexedDB after each step. A reload
// resumes at the first run that had not finished, once the same model is loaded again; the run that was cut off
// starts over from the model's weights (its partial curve is dropped), finished runs are kept.
// Events of work queued before a run's reset (a start-up evaluation) are told apart by the `frozen` event the
// worker sends when the run's trainer is built: only events after it belong to the run.
import type { StateCreator } from 'zustand/vanilla';
import { ablationId, ablationRuns, type AblationRunPlan } from '../../rl/ablation.ts';
import type { AblationDb } from '../persist/ablation-db.ts';
import type { AblationRecord, AblationRunState } from '../persist/ablation-types.ts';
import type { StoreContext } from './context.ts';
import type { AblationSlice, PlaygroundState } from './types.ts';

/** A stored record as a reload finds it: a run that was running starts over. */
export function resumable(record: AblationRecord): AblationRecord {
  return {
    ...record,
    runs: record.runs.map((r) =>
      r.status === 'running' ? { ...r, status: 'pending' as const, metrics: [], evals: [], wall_s: 0 } : r,
    ),
  };
}

export function createAblationSlice(
  ctx: StoreContext,
  initialSpec: AblationSlice['ablationSpec'],
): StateCreator<PlaygroundState, [], [], AblationSlice> {
  const now = () => (ctx.deps.now ?? Date.now)();
  let db: Promise<AblationDb | null> | null = null;
  const openDb = () => {
    db ??= ctx.deps.openAblationDb ? ctx.deps.openAblationDb().catch(() => null) : Promise.resolve(null);
    return db;
  };
  let writes: Promise<void> = Promise.resolve();
  const save = (record: AblationRecord) => {
    writes = writes
      .then(async () => {
        const d = await openDb();
        if (d) await d.put(record);
      })
      .catch((e) => console.error('saving the ablation failed', e));
    return writes;
  };
  /** the run's events start after its trainer is built (the `frozen` event after our reset) */
  let armed = false;
  let awaitingFrozen = false;
  /** a restored ablation waits for the load's `frozen` event (the model is ready and its trainer built) */
  let resumeOnFrozen = false;
  /** the loaded model's trainer is built (its `frozen` event came after its `ready`) */
  let trainerBuilt = false;
  let runStartedAt = 0;

  return (set, get) => {
    const update = (record: AblationRecord) => {
      const r = { ...record, updatedAt: now() };
      set({ ablation: r });
      void save(r);
      return r;
    };
    const updateRun = (key: string, change: (r: AblationRunState) => AblationRunState) => {
      const rec = get().ablation;
      if (!rec) return null;
      return update({ ...rec, runs: rec.runs.map((r) => (r.key === key ? change(r) : r)) });
    };
    const runningKey = () => get().ablation?.runs.find((r) => r.status === 'running')?.key ?? null;

    const startNext = () => {
      const rec = get().ablation;
      if (!rec || rec.status !== 'running') return;
      const next = rec.runs.find((r) => r.status === 'pending');
      if (!next) {
        update({ ...rec, status: rec.runs.some((r) => r.status === 'failed') ? 'failed' : 'done' });
        set({ wantsTraining: false, activity: `ablation finished: ${rec.runs.length} runs` });
        return;
      }
      let plan: AblationRunPlan | undefined;
      try {
        plan = ablationRuns(rec.spec, rec.base).find((p) => p.key === next.key);
      } catch (e) {
        update({ ...rec, status: 'failed', error: (e as Error).message });
        return;
      }
      if (!plan || !ctx.client) {
        update({
          ...rec,
          status: 'paused',
          error: plan ? 'the training worker is not running' : `run ${next.key} is not part of the ablation`,
        });
        return;
      }
      updateRun(next.key, (r) => ({ ...r, status: 'running', metrics: [], evals: [], wall_s: 0 }));
      armed = false;
      awaitingFrozen = true;
      runStartedAt = now();
      // the run is also a saved run of its own (runs slice), named by its config
      set({
        currentRun: null,
        activeConfig: plan.config,
        configDirty: false,
        wantsTraining: true,
        activity: `ablation run ${rec.runs.indexOf(next) + 1}/${rec.runs.length}: ${plan.label} seed ${plan.seed}`,
      });
      ctx.client.send({ type: 'reset', config: plan.config, onnxModel: get().onnxModel });
      ctx.client.send({ type: 'train' });
    };

    const finishRun = (status: AblationRunState['status'], note?: string) => {
      const key = runningKey();
      armed = false;
      if (!key) return;
      updateRun(key, (r) => ({ ...r, status, wall_s: (now() - runStartedAt) / 1000, ...(note ? { note } : {}) }));
    };

    return {
      ablationSpec: initialSpec,
      ablation: null,
      ablationError: null,

      setAblationSpec(spec) {
        set({ ablationSpec: spec, ablationError: null });
      },

      async runAblation() {
        const { ablationSpec: spec, config, model, status, wantsTraining } = get();
        if (!spec) return set({ ablationError: 'choose a field, its values and the seeds first' });
        if (!model || status !== 'idle' || wantsTraining)
          return set({ ablationError: 'wait until the model is loaded and training is paused' });
        let plans: AblationRunPlan[];
        try {
          plans = ablationRuns(spec, config);
        } catch (e) {
          return set({ ablationError: (e as Error).message });
        }
        const id = ablationId(spec, config);
        const d = await openDb();
        const stored = (await d?.get(id)) ?? (get().ablation?.id === id ? get().ablation : undefined);
        const t = now();
        const record: AblationRecord =
          stored && stored.model === model.name
            ? { ...resumable(stored), status: 'running', error: undefined }
            : {
                id,
                spec,
                base: config,
                model: model.name,
                createdAt: t,
                updatedAt: t,
                status: 'running',
                runs: plans.map((p) => ({
                  key: p.key,
                  label: p.label,
                  point: p.point,
                  seed: p.seed,
                  status: 'pending',
                  metrics: [],
                  evals: [],
                  wall_s: 0,
                })),
              };
        set({ ablationError: null });
        update(record);
        startNext();
      },

      stopAblation() {
        const rec = get().ablation;
        if (!rec || rec.status !== 'running') return;
        update({ ...rec, status: 'paused' });
        set({ wantsTraining: false });
        ctx.client?.send({ type: 'pause' });
      },

      async clearAblation() {
        const rec = get().ablation;
        if (!rec) return;
        if (rec.status === 'running') get().stopAblation();
        armed = false;
        awaitingFrozen = false;
        resumeOnFrozen = false;
        set({ ablation: null });
        await writes;
        const d = await openDb();
        await d?.remove(rec.id);
      },

      async restoreAblation() {
        const spec = get().ablationSpec;
        if (!spec) return;
        const d = await openDb();
        const stored = await d?.get(ablationId(spec, get().config));
        if (!stored || get().ablation) return;
        const rec = resumable(stored);
        set({ ablation: rec });
        if (rec.status !== 'running') return;
        const { model, status } = get();
        if (model && status === 'idle') {
          // between the load's `ready` and its `frozen` the next `frozen` is still the load's: wait for it
          if (model.name !== rec.model)
            set({ ablationError: `the ablation runs on "${rec.model}": load that model to resume it` });
          else if (trainerBuilt) startNext();
          else resumeOnFrozen = true;
        }
      },

      internal_ablationEvent(e) {
        if (e.type === 'ready') trainerBuilt = false;
        if (e.type === 'frozen') trainerBuilt = true;
        const rec = get().ablation;
        if (!rec) return;
        switch (e.type) {
          case 'ready':
            if (rec.status !== 'running' || runningKey() !== null) return;
            if (e.model.name === rec.model) {
              resumeOnFrozen = true;
              set({ ablationError: null });
            } else
              set({
                ablationError: `the ablation runs on "${rec.model}": load that model to resume it (loaded: "${e.model.name}")`,
              });
            return;
          case 'frozen':
            if (resumeOnFrozen) {
              resumeOnFrozen = false;
              startNext();
            } else if (awaitingFrozen) {
              awaitingFrozen = false;
              armed = true;
            }
            return;
          case 'step': {
            const key = runningKey();
            if (!armed || !key) return;
            const m = {
              step: e.metrics.step,
              reward_mean: e.metrics.reward_mean,
              time_s: { ...e.metrics.time_s },
              ...(e.metrics.tokens_trained !== undefined ? { tokens_trained: e.metrics.tokens_trained } : {}),
            };
            updateRun(key, (r) => ({
              ...r,
              metrics: [...r.metrics.filter((x) => x.step !== m.step), m],
              wall_s: (now() - runStartedAt) / 1000,
            }));
            return;
          }
          case 'evaluation': {
            const key = runningKey();
            if (!armed || !key) return;
            const p = { step: e.step, accuracy: e.accuracy, n: e.n };
            updateRun(key, (r) => ({
              ...r,
              evals: [...r.evals.filter((x) => x.step !== p.step), p].toSorted((a, b) => a.step - b.step),
            }));
            return;
          }
          case 'stopped': {
            if (!armed) return;
            if (e.reason === 'finished' || e.reason === 'diverged') {
              finishRun('done', e.reason === 'diverged' ? 'diverged' : undefined);
              startNext();
            } else if (e.reason === 'error') {
              finishRun('failed', get().error?.message ?? 'error');
              startNext();
            } else {
              // paused (the page's Pause): the run starts over when the ablation resumes
              const key = runningKey();
              if (key) updateRun(key, (r) => ({ ...r, status: 'pending', metrics: [], evals: [], wall_s: 0 }));
              const latest = get().ablation;
              if (latest && latest.status === 'running') update({ ...latest, status: 'paused' });
            }
            return;
          }
          case 'error':
            if (!e.fatal || rec.status !== 'running' || runningKey() === null) return;
            armed = false;
            awaitingFrozen = false;
            {
              const key = runningKey();
              if (key) updateRun(key, (r) => ({ ...r, status: 'pending', metrics: [], evals: [], wall_s: 0 }));
              const latest = get().ablation;
              if (latest) update({ ...latest, status: 'paused', error: e.message });
            }
            return;
          default:
            return;
        }
      },
    };
  };
}
