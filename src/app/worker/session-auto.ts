// The "auto" backend's measurement as a job of the session's queue (backend-auto.ts measureAuto), queued after the
// start-up work of a load (the trainer, the followed rollout, the baseline evaluation) and before anything the page
// asks for later, so the first rollout never waits for it and a Train pressed meanwhile starts on the winner: a run
// never changes backend mid-way. When WebGPU won, the session moves onto it as a reset would (the trainer rebuilt on
// it, the CPU backend closed); when the CPU backend won, it stays. A failure keeps the CPU backend and says why.
import type { BackendInfo } from './protocol.ts';
import { measureAuto } from './backend-auto.ts';
import { KEEP_STATUS } from './session-jobs.ts';
import type { SessionState } from './session-state.ts';
import { buildTrainer, emitFrozen } from './session-trainer.ts';

/** The backend as the trainer uses it: its frozen base and KV cache storage (f16 on shader-f16 unless forced f32). */
export function backendInUse(s: SessionState): BackendInfo {
  if (!s.loaded) throw new Error('no model is loaded');
  const policy = s.active?.policy;
  return policy
    ? { ...s.loaded.backendInfo, storage: { base: policy.baseDtype, kvCache: policy.kvCacheDtype } }
    : s.loaded.backendInfo;
}

export function scheduleAutoMeasure(s: SessionState): void {
  s.jobs.enqueue(async (busy) => {
    const loaded = s.loaded;
    const pending = loaded?.pendingAuto;
    const active = s.active;
    if (!loaded || !pending) return KEEP_STATUS;
    delete loaded.pendingAuto;
    // the load failed after the backend was chosen: nothing runs on it
    if (!active) return KEEP_STATUS;
    const { cpu } = pending.start;
    const clock = s.env.autoClock;
    let result: Awaited<ReturnType<typeof measureAuto>>;
    try {
      result = await measureAuto(pending, {
        config: active.config,
        checkpoint: loaded.checkpoint,
        decoder: loaded.tokenizer,
        cpuPolicy: active.policy,
        onCandidate: (name) => s.emit({ type: 'activity', step: 0, text: `auto backend: measuring ${name}` }),
        ...(clock ? { clock } : {}),
      });
    } catch (e) {
      keepCpu(s, `auto -> ${cpu.name}: the backends could not be measured (${(e as Error).message})`);
      return;
    }
    if (result.winner === cpu) {
      loaded.backendInfo = result.selected.info;
      s.emit({ type: 'backend', backend: backendInUse(s) });
      return;
    }
    // WebGPU won: the trainer moves onto it as on a reset (same config and run, step 0), then the CPU backend closes
    const run = active.run;
    const provisional = loaded.backendInfo;
    loaded.backend = result.selected.backend;
    loaded.backendInfo = result.selected.info;
    try {
      s.active = { ...(await buildTrainer(s, active.config, busy)), ...(run !== undefined ? { run } : {}) };
    } catch (e) {
      result.winner.close();
      loaded.backend = cpu.backend;
      loaded.backendInfo = provisional;
      if (s.active === null)
        s.active = { ...(await buildTrainer(s, active.config, busy)), ...(run !== undefined ? { run } : {}) };
      keepCpu(
        s,
        `auto -> ${cpu.name}: ${result.winner.name} won but its trainer could not be built (${(e as Error).message})`,
      );
      return;
    }
    cpu.close();
    s.emit({ type: 'backend', backend: backendInUse(s) });
    emitFrozen(s);
  });
}

/** The CPU backend stays (the measurement failed): the line and the header's notice say why. */
function keepCpu(s: SessionState, line: string): void {
  if (!s.loaded) return;
  const info = s.loaded.backendInfo;
  const { auto: _auto, ...rest } = info;
  s.loaded.backendInfo = { ...rest, cpuReason: `${line}.`, autoPending: { line, measuring: false } };
  s.emit({ type: 'backend', backend: backendInUse(s) });
}
