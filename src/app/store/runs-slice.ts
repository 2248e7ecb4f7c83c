// Runs slice: the run being trained (appended to on every step and written to IndexedDB at once, or with the next
// step's record when the database is still writing: context.ts persistRun), the list of
// saved and imported runs, and which of them are overlaid on the charts.
import type { StateCreator } from 'zustand/vanilla';
import { importRunFile } from '../io/run-import.ts';
import { newRunId, type SavedRun } from '../persist/run-types.ts';
import { persist, persistRun, type StoreContext } from './context.ts';
import { modelLabel } from '../worker/model-label.ts';
import type { BackendInfo } from '../worker/protocol.ts';
import type { PlaygroundState, RunsSlice } from './types.ts';

/** Short label for a new run: the config's name plus the time, e.g. "tiny-default 14:03:22". */
function runName(configName: string, now: number): string {
  return `${configName || 'run'} ${new Date(now).toTimeString().slice(0, 8)}`;
}

/** How a saved run names its backend, e.g. "WebGPU: google / swiftshader" or "wasm (WebAssembly SIMD kernels, 2 threads)". */
function backendLabel(backend: BackendInfo): string {
  return backend.kind === 'webgpu' ? `WebGPU: ${backend.description}` : backend.description;
}

export function createRunsSlice(ctx: StoreContext): StateCreator<PlaygroundState, [], [], RunsSlice> {
  const now = () => (ctx.deps.now ?? Date.now)();
  return (set, get) => {
    /** the run of the running trainer, created at its first step or evaluation */
    const currentOrNewRun = (): SavedRun => {
      const t = now();
      const { currentRun, activeConfig, model, backend, modelSpec, frozen } = get();
      const frozenModel =
        frozen.role !== null && frozen.onnx ? `${frozen.role}: ${frozen.onnx.name} · ${frozen.onnx.runtime}` : null;
      return (
        currentRun ?? {
          id: newRunId(t),
          name: runName(activeConfig.name, t),
          createdAt: t,
          updatedAt: t,
          config: activeConfig,
          model: model?.name ?? modelLabel(modelSpec),
          backend: backend ? backendLabel(backend) : 'unknown',
          ...(frozenModel ? { frozenModel } : {}),
          status: 'paused',
          metrics: [],
          rollouts: [],
        }
      );
    };
    const save = (run: SavedRun) => {
      const updated = { ...run, updatedAt: now() };
      set({ currentRun: updated, runs: [updated, ...get().runs.filter((r) => r.id !== run.id)] });
      void persistRun(ctx, updated);
    };
    return {
      currentRun: null,
      runs: [],
      overlayIds: [],
      inspectedRunId: null,

      inspectRun(id) {
        set({ inspectedRunId: id, ...(id !== null ? { view: 'rollouts' as const } : {}) });
      },
      toggleOverlay(id) {
        const ids = get().overlayIds;
        set({ overlayIds: ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id] });
      },
      async deleteRun(id) {
        if (get().currentRun?.id === id) set({ currentRun: null });
        if (get().inspectedRunId === id) set({ inspectedRunId: null });
        set({ runs: get().runs.filter((r) => r.id !== id), overlayIds: get().overlayIds.filter((x) => x !== id) });
        await persist(ctx, (db) => db.remove(id));
      },
      async importRun(text, fileName) {
        let run: SavedRun;
        try {
          run = importRunFile(text, fileName);
        } catch (e) {
          set({ error: { message: `import failed: ${(e as Error).message}`, fatal: false } });
          return;
        }
        set({ runs: [run, ...get().runs], overlayIds: [...get().overlayIds, run.id] });
        await persist(ctx, (db) => db.put(run));
      },

      internal_recordBackend(backend) {
        // a run moved to another kind of backend (a lost GPU device, auto's choice): its label names every backend
        // it trained on; a new description of the same kind (a new device, auto's report) replaces the last name
        const run = get().currentRun;
        const label = backendLabel(backend);
        if (!run || run.backend.endsWith(label)) return;
        const cut = run.backend.lastIndexOf(' → ');
        const earlier = cut < 0 ? '' : run.backend.slice(0, cut + 3);
        const last = run.backend.slice(earlier.length);
        const sameKind = last.startsWith('WebGPU: ') === (backend.kind === 'webgpu');
        save({ ...run, backend: sameKind ? `${earlier}${label}` : `${run.backend} → ${label}` });
      },
      internal_recordStep(metrics, rollouts) {
        const base = currentOrNewRun();
        save({
          ...base,
          status: get().status === 'training' ? 'running' : 'paused',
          metrics: [...base.metrics.filter((m) => m.step !== metrics.step), metrics],
          rollouts: rollouts.length > 0 ? rollouts : base.rollouts,
        });
      },
      internal_recordEvaluation(point, rollouts) {
        const base = currentOrNewRun();
        save({
          ...base,
          evaluations: [...(base.evaluations ?? []).filter((p) => p.step !== point.step), point].toSorted(
            (a, b) => a.step - b.step,
          ),
          evalRollouts: rollouts,
        });
      },
    };
  };
}
