// The `calibrate` request: a short timing of the running config's step shape on the loaded model (rl/calibration.ts:
// one decode call with a few decode steps, one scoring pass, one gradient chunk), so the page can say how long a
// step and the run take before training. Queued like every policy job, so it never races a step.
import { calibrate } from '../../rl/calibration.ts';
import type { WorkerRequest } from './protocol.ts';
import type { SessionState } from './session-state.ts';

export function calibrateRequest(s: SessionState, request: Extract<WorkerRequest, { type: 'calibrate' }>): void {
  s.jobs.enqueue(
    async () => {
      if (!s.active || !s.loaded) throw new Error('no trainer: load a model first');
      const estimate = await calibrate(s.active.policy, s.active.config, s.loaded.checkpoint.config);
      s.emit({ type: 'calibration', requestId: request.requestId, model: s.loaded.model.name, estimate });
    },
    { rest: null, requestId: request.requestId },
  );
}
