// A lost GPU device (a driver reset, a crashed GPU process, the device destroyed under the engine) as one error
// type: once a backend's device is lost every later call on it throws a DeviceLostError with the same message, and
// the page and the CLI tell it from other failures (isDeviceLost) to offer a new device or another backend.

export class DeviceLostError extends Error {
  override readonly name = 'DeviceLostError';

  constructor(
    /** GPUDeviceLostReason: 'destroyed' or 'unknown' */
    readonly reason: string,
    /** the implementation's own words */
    readonly detail: string,
  ) {
    super(
      `WebGPU device lost (${reason}${detail ? `: ${detail}` : ''}); every tensor on it is gone, so this backend ` +
        'cannot run again: open a new device or another backend and continue from the last completed step',
    );
  }
}

/** True when `e`, or an error in its `cause` chain, is a DeviceLostError (also one that crossed a worker as a plain object). */
export function isDeviceLost(e: unknown): boolean {
  for (let x = e, depth = 0; x && typeof x === 'object' && depth < 8; x = (x as { cause?: unknown }).cause, depth++)
    if ((x as { name?: unknown }).name === 'DeviceLostError') return true;
  return false;
}
