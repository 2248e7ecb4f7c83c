// Calibration slice: asks the worker to time the running config's step shape on the loaded model (the `calibrate`
// request, rl/calibration.ts) and keeps the estimate the planner shows: "about N s per step, M min for the run".
import type { StateCreator } from 'zustand/vanilla';
import type { StoreContext } from './context.ts';
import type { CalibrationSlice, PlaygroundState } from './types.ts';

export function createCalibrationSlice(ctx: StoreContext): StateCreator<PlaygroundState, [], [], CalibrationSlice> {
  let pending: number | null = null;
  return (set) => ({
    calibration: null,
    calibrating: false,
    calibrate() {
      if (!ctx.client) return;
      pending = ctx.nextRequestId++;
      set({ calibrating: true, calibration: null });
      ctx.client.send({ type: 'calibrate', requestId: pending });
    },
    internal_recordCalibration(e) {
      if (e.requestId !== pending) return;
      pending = null;
      set({
        calibrating: false,
        calibration: {
          model: e.model,
          stepSeconds: e.estimate.step_s,
          runSeconds: e.estimate.run_s,
          estimate: e.estimate,
        },
      });
    },
    internal_calibrationFailed(requestId, message) {
      if (requestId !== pending) return;
      pending = null;
      set({
        calibrating: false,
        calibration: { model: '', stepSeconds: Number.NaN, runSeconds: Number.NaN, error: message },
      });
    },
  });
}
