// `rema train` when the GPU goes away mid-run (a driver reset, a crashed GPU process): what it says and how to go
// on. Every completed step is already in the run folder (logs and checkpoint), so the run resumes with the same
// command, on this GPU once it is back or with --backend wasm on the CPU. REMA_LOSE_DEVICE_AFTER_STEP=N destroys
// the WebGPU device right after step N is written, to try (and test) exactly that.
import type { Backend } from '../engine/backend.ts';

/** The exit status of `rema train` after a lost device (1 is any other error, 3 a diverged run). */
export const DEVICE_LOST_EXIT = 4;

/** What `rema train` says after the device was lost while it ran step `step` (`saved`: the newest checkpoint). */
export function deviceLostMessage(step: number, steps: number, saved: number, detail: string): string {
  const resume =
    saved > 0
      ? `the run folder holds every step up to ${saved} (its checkpoint); run the same command again to resume from step ${saved}`
      : 'no step was completed; run the same command again to start over';
  return (
    `the GPU device was lost during step ${step} of ${steps} (${detail}). ${resume}, ` +
    'on this GPU once it is back or with --backend wasm on the CPU'
  );
}

/** Destroys the WebGPU device after step REMA_LOSE_DEVICE_AFTER_STEP, the stand-in for a driver reset. */
export function loseDeviceIfAsked(backend: Backend, step: number): void {
  const at = process.env.REMA_LOSE_DEVICE_AFTER_STEP;
  if (at === undefined || Number(at) !== step) return;
  const device = (backend as Backend & { device?: GPUDevice }).device;
  if (!device) throw new Error(`REMA_LOSE_DEVICE_AFTER_STEP needs --backend webgpu (this run is on ${backend.kind})`);
  device.destroy();
}
