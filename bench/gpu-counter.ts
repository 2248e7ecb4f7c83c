// Counts what a program asks of WebGPU, independently of the engine's own bookkeeping: dispatches, submits,
// readbacks (mapAsync for reading, and the bytes mapped), bind groups created, bytes uploaded from the host
// (queue.writeBuffer), buffers, encoders, passes, pipelines (sync and async). It wraps the methods of the live device, queue, encoders,
// passes and buffers in place: Dawn's objects are native, so a JS Proxy could not be handed back to Dawn's own
// calls (createBindGroup entries, copyBufferToBuffer, submit), while a wrapped method keeps the object itself.
// With `execute` false, dispatches are counted but not recorded (a counts-only run on a slow software adapter:
// copies, clears and uploads still happen, kernels do not).

export interface GpuCounts {
  dispatches: number;
  submits: number;
  commandBuffers: number;
  readbacks: number;
  readbackBytes: number;
  bindGroupsCreated: number;
  hostUploadBytes: number;
  writeBuffers: number;
  buffersCreated: number;
  encoders: number;
  computePasses: number;
  clearBuffers: number;
  copies: number;
  /** createComputePipeline calls (compiled on the calling thread) */
  pipelinesCreated: number;
  /** createComputePipelineAsync calls */
  pipelinesCreatedAsync: number;
  /** pipelines (either call) created after the first dispatch since wrapping: compiled in the middle of work */
  pipelinesAfterDispatch: number;
}

export function zeroCounts(): GpuCounts {
  return {
    dispatches: 0,
    submits: 0,
    commandBuffers: 0,
    readbacks: 0,
    readbackBytes: 0,
    bindGroupsCreated: 0,
    hostUploadBytes: 0,
    writeBuffers: 0,
    buffersCreated: 0,
    encoders: 0,
    computePasses: 0,
    clearBuffers: 0,
    copies: 0,
    pipelinesCreated: 0,
    pipelinesCreatedAsync: 0,
    pipelinesAfterDispatch: 0,
  };
}

/** b - a, field by field. */
export function diffCounts(a: GpuCounts, b: GpuCounts): GpuCounts {
  const out = zeroCounts();
  for (const k of Object.keys(out) as Array<keyof GpuCounts>) out[k] = b[k] - a[k];
  return out;
}

export interface CountingDevice {
  readonly device: GPUDevice;
  /** running totals since wrapping */
  readonly counts: GpuCounts;
  /** a copy of the totals now */
  snapshot(): GpuCounts;
  /** false: dispatches are counted but not recorded */
  execute: boolean;
}

const MAP_READ_MODE = 1;

// Replace obj[name] with a wrapper that calls `before` and then the original method on obj.
function wrap<T extends object>(
  obj: T,
  name: string,
  around: (orig: (...a: unknown[]) => unknown, args: unknown[]) => unknown,
): void {
  const target = obj as unknown as Record<string, (...a: unknown[]) => unknown>;
  const orig = target[name];
  if (typeof orig !== 'function') throw new Error(`gpu-counter: ${name} is not a method of ${String(obj)}`);
  const bound = orig.bind(obj);
  Object.defineProperty(obj, name, {
    value: (...args: unknown[]) => around(bound, args),
    configurable: true,
    writable: true,
  });
}

/** Bytes a queue.writeBuffer(buffer, offset, data, dataOffset?, size?) call uploads (offset and size count
 *  elements for typed arrays, bytes for an ArrayBuffer, as in the WebGPU spec). */
export function writeBufferBytes(data: unknown, dataOffset: unknown, size: unknown): number {
  const isView = ArrayBuffer.isView(data);
  const unit = isView ? ((data as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1) : 1;
  const total = isView ? (data as ArrayBufferView).byteLength : (data as ArrayBuffer).byteLength;
  if (typeof size === 'number') return size * unit;
  return total - (typeof dataOffset === 'number' ? dataOffset * unit : 0);
}

/** Wrap `device` (in place) so that every call listed in GpuCounts is counted. */
export function countGpuCalls(device: GPUDevice, options: { execute?: boolean } = {}): CountingDevice {
  const counts = zeroCounts();
  const state: CountingDevice = {
    device,
    counts,
    execute: options.execute ?? true,
    snapshot: () => ({ ...counts }),
  };
  const wrapBuffer = (buffer: GPUBuffer): GPUBuffer => {
    wrap(buffer, 'mapAsync', (orig, args) => {
      const [mode, offset, size] = args as [number, number | undefined, number | undefined];
      if ((mode & MAP_READ_MODE) !== 0) {
        counts.readbacks++;
        counts.readbackBytes += size ?? buffer.size - (offset ?? 0);
      }
      return orig(...args);
    });
    return buffer;
  };
  const wrapPass = (pass: GPUComputePassEncoder): GPUComputePassEncoder => {
    counts.computePasses++;
    for (const name of ['dispatchWorkgroups', 'dispatchWorkgroupsIndirect']) {
      wrap(pass, name, (orig, args) => {
        counts.dispatches++;
        return state.execute ? orig(...args) : undefined;
      });
    }
    return pass;
  };
  const wrapEncoder = (encoder: GPUCommandEncoder): GPUCommandEncoder => {
    counts.encoders++;
    wrap(encoder, 'beginComputePass', (orig, args) => wrapPass(orig(...args) as GPUComputePassEncoder));
    wrap(encoder, 'clearBuffer', (orig, args) => {
      counts.clearBuffers++;
      return orig(...args);
    });
    wrap(encoder, 'copyBufferToBuffer', (orig, args) => {
      counts.copies++;
      return orig(...args);
    });
    return encoder;
  };
  wrap(device, 'createBuffer', (orig, args) => {
    counts.buffersCreated++;
    return wrapBuffer(orig(...args) as GPUBuffer);
  });
  wrap(device, 'createBindGroup', (orig, args) => {
    counts.bindGroupsCreated++;
    return orig(...args);
  });
  wrap(device, 'createCommandEncoder', (orig, args) => wrapEncoder(orig(...args) as GPUCommandEncoder));
  for (const name of ['createComputePipeline', 'createComputePipelineAsync'] as const) {
    wrap(device, name, (orig, args) => {
      if (name === 'createComputePipeline') counts.pipelinesCreated++;
      else counts.pipelinesCreatedAsync++;
      if (counts.dispatches > 0) counts.pipelinesAfterDispatch++;
      return orig(...args);
    });
  }
  const queue = device.queue;
  wrap(queue, 'submit', (orig, args) => {
    counts.submits++;
    counts.commandBuffers += (args[0] as unknown[]).length;
    return orig(...args);
  });
  wrap(queue, 'writeBuffer', (orig, args) => {
    counts.writeBuffers++;
    counts.hostUploadBytes += writeBufferBytes(args[2], args[3], args[4]);
    return orig(...args);
  });
  return state;
}
