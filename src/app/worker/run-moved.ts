// The error a worker job ends with when its GPU device was lost and the run moved to another backend
// (session-device-loss.ts): not a failure of the run, which goes on from its last step shown. The job queue marks
// its error event `continuable`, and the page's error banner offers to continue training.
export class RunMovedError extends Error {
  override readonly name = 'RunMovedError';
}
