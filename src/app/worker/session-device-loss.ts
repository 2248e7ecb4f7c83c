// A lost GPU device in the worker session (a driver reset, a crashed GPU process): the run goes on from its last
// step the page was shown. After each step on WebGPU, before the step is sent, the session keeps a host copy of the
// trainer's state, every adapter and every optimiser state; when a step finds the device lost, the session asks for
// a new device (or, when there is none, opens the CPU backend), rebuilds the trainer on it, restores that copy and
// says so in a non-fatal error, with Train stopped: pressing Train continues the same run from that step.
import { isDeviceLost } from '../../engine/device-lost.ts';
import type { Trainer, TrainerState } from '../../rl/trainer.ts';
import { selectBackend } from './backend-select.ts';
import { backendInUse } from './session-auto.ts';
import { RunMovedError } from './run-moved.ts';
import type { SessionState } from './session-state.ts';
import { buildTrainer, emitFrozen } from './session-trainer.ts';

/** The host copy of a trainer after a completed step. */
interface LastGood {
  trainer: Trainer;
  state: TrainerState;
  adapters: Record<string, Record<string, Uint8Array>>;
  optimizers: Record<string, Uint8Array>;
}

/** Largest copy kept after every step: a LoRA's is a few MB; full fine-tuning of a real model would read back
 *  three times its weights per step, so such a run keeps none (a loss then restarts it from step 0, and says so). */
export const COPY_BUDGET_BYTES = 512 * 1024 * 1024;

const lastGood = new WeakMap<SessionState, LastGood>();
/** sessions whose run could not be moved after a loss */
const unmoved = new WeakSet<SessionState>();
/** trainers whose copy was over COPY_BUDGET_BYTES, with its size */
const tooLarge = new WeakMap<Trainer, number>();

/** After a completed step, before it is shown: keeps the host copy when the run is on WebGPU (only a device is lost). */
export async function keepLastGood(s: SessionState): Promise<void> {
  const active = s.active;
  if (!active || s.loaded?.backend.kind !== 'webgpu' || tooLarge.has(active.trainer)) return;
  const { policy, trainer } = active;
  const adapters: LastGood['adapters'] = {};
  const optimizers: LastGood['optimizers'] = {};
  let bytes = 0;
  for (const name of policy.adapters) {
    adapters[name] = await policy.saveAdapter(name);
    optimizers[name] = await policy.saveOptimizerState(name);
    bytes += optimizers[name].byteLength + Object.values(adapters[name]).reduce((a, f) => a + f.byteLength, 0);
  }
  if (bytes > COPY_BUDGET_BYTES) {
    tooLarge.set(trainer, bytes);
    lastGood.delete(s);
    return;
  }
  lastGood.set(s, { trainer, state: trainer.state(), adapters, optimizers });
}

/** Runs `work` (`what`: "step 3", "an evaluation"); a lost device moves the run onto a new backend and throws the
 *  error that says so. */
export async function surviveDeviceLoss<T>(s: SessionState, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (!isDeviceLost(e) || !s.active || !s.loaded) throw e;
    const why = (e as Error).message;
    let moved: Error;
    try {
      moved = await moveRun(s, what, why);
    } catch (failed) {
      unmoved.add(s);
      throw new Error(
        `The GPU device was lost during ${what} (${why}), and the run could not be moved to another backend ` +
          `(${(failed as Error).message}): load the model again.`,
        { cause: failed },
      );
    }
    throw moved;
  }
}

/** Whether a lost device's run could not be moved (the session then has no trainer: its jobs fail fatally). */
export function runNotMoved(s: SessionState): boolean {
  return unmoved.has(s) && s.active === null;
}

/** Reopens a backend, rebuilds the trainer on it from the last good copy; returns the error the page shows. */
async function moveRun(s: SessionState, what: string, why: string): Promise<RunMovedError> {
  const active = s.active!;
  const loaded = s.loaded!;
  const kept = lastGood.get(s);
  const copy = kept?.trainer === active.trainer ? kept : null;
  s.emit({
    type: 'activity',
    step: active.trainer.state().step,
    text: 'the GPU device was lost: opening a backend again',
  });
  // the old policy's tensors and the old backend went with the device; free what the host still holds
  active.policy.dispose();
  s.active = null;
  loaded.backend.destroy();
  const { backend, info } = await selectBackend('webgpu', s.env.gpu);
  loaded.backend = backend;
  loaded.backendInfo = info;
  const rebuilt = await buildTrainer(s, active.config, () => {});
  if (copy) {
    for (const [name, files] of Object.entries(copy.adapters)) {
      await rebuilt.policy.loadAdapter(name, files);
      await rebuilt.policy.loadOptimizerState(name, copy.optimizers[name]);
    }
    rebuilt.trainer.restore(copy.state);
    lastGood.set(s, { ...copy, trainer: rebuilt.trainer }); // a second loss before the next step comes back here
  }
  s.active = { ...rebuilt, ...(active.run !== undefined ? { run: active.run } : {}) };
  s.emit({ type: 'backend', backend: backendInUse(s) });
  emitFrozen(s);
  const from = rebuilt.trainer.state().step;
  const large = tooLarge.get(active.trainer);
  const shown =
    large === undefined
      ? 'the last step shown'
      : `its start: a copy of its trained weights and optimiser state (${(large / 2 ** 20).toFixed(0)} MiB) is too large to keep after every step`;
  const where =
    info.kind === 'webgpu' ? `a new WebGPU device (${info.description})` : `the CPU backend (${info.description})`;
  return new RunMovedError(
    `The GPU device was lost during ${what} (${why}). The run moved to ${where} and continues from step ` +
      `${from}, ${shown}: press Train (or Step) to go on.`,
  );
}
