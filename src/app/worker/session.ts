// The training session behind the worker protocol: loads a model onto the chosen backend, builds the real
// engine policy and the real RL trainer, and runs steps on request (Train = back to back until Pause, Step =
// one). Runs in the Web Worker (trainer.worker.ts) or in-process (component tests). The parts:
//   session-handlers.ts  one handler per request type (the map is typed by protocol.ts's WorkerRequest union)
//   session-jobs.ts      the one queue every model-touching request runs through; it owns the status changes
//   session-work.ts      steps, Train's chain of steps, evaluations, the followed problem's rollout
//   session-trainer.ts   building a trainer (with a frozen ONNX agent) and the ONNX model slot (onnx-slot.ts)
//   session-model.ts     loading a model's files onto a backend
//   session-auto.ts      the "auto" backend's measurement, queued after the first rollouts and before any step
//   session-state.ts     what the session holds between requests
import type { WorkerEvent, WorkerRequest } from './protocol.ts';
import { throttleActivity } from './activity-throttle.ts';
import { createJobQueue } from './session-jobs.ts';
import { REQUEST_HANDLERS } from './session-handlers.ts';
import { createSessionState, type SessionEnv } from './session-state.ts';

export type { SessionEnv } from './session-state.ts';
export { progressLine } from './session-trainer.ts';

export function createSession(post: (e: WorkerEvent) => void, env: SessionEnv): (request: WorkerRequest) => void {
  const emit = throttleActivity(post);
  const state = createSessionState(env, emit, createJobQueue(emit));
  return (request) => {
    // the map pairs each type with its request's handler; TypeScript cannot follow that pairing through an index
    const handle = REQUEST_HANDLERS[request.type] as (s: typeof state, r: WorkerRequest) => void;
    handle(state, request);
  };
}
