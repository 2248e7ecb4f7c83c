// GPU time per kernel class from timestamp queries (off by default: the benchmark turns it on): while profiling,
// each dispatch runs in its own compute pass whose beginning and end write a timestamp; at every flush the queries
// are resolved and copied to a mappable buffer, read later without stalling the recording. Kernel class = the
// program key up to its first ':' (matmulTiled4, attentionDecode, rmsnorm, ...). Needs the device feature
// `timestamp-query`; splitting passes adds its own overhead, so profiled runs are for the breakdown, not the total.

/** WebGPU enum values (runtime.ts imports this file, so they are not taken from there) */
const MAP_READ = 0x1,
  COPY_SRC = 0x4,
  COPY_DST = 0x8;
/** Queries per flush (two per dispatch); more dispatches force a flush. */
const CAPACITY = 4096;
const QUERY_RESOLVE = 0x200;

export interface KernelTime {
  dispatches: number;
  ms: number;
}

export class KernelProfiler {
  private readonly querySet: GPUQuerySet;
  private readonly resolve: GPUBuffer;
  private keys: string[] = [];
  private readonly pending: Promise<void>[] = [];
  readonly totals = new Map<string, KernelTime>();

  constructor(private readonly device: GPUDevice) {
    if (!device.features.has('timestamp-query'))
      throw new Error('WebGPU profiling needs the timestamp-query feature, which this device lacks');
    this.querySet = device.createQuerySet({ type: 'timestamp', count: CAPACITY });
    this.resolve = device.createBuffer({ label: 'timestamps', size: CAPACITY * 8, usage: QUERY_RESOLVE | COPY_SRC });
  }

  /** Room for one more dispatch before the next flush. */
  get full(): boolean {
    return 2 * (this.keys.length + 1) > CAPACITY;
  }

  /** The timestampWrites of the next dispatch's pass (program `key`). */
  next(key: string): GPUComputePassTimestampWrites {
    const i = this.keys.length;
    this.keys.push(key);
    return { querySet: this.querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 };
  }

  /** Before the encoder is finished: resolve this batch's queries into a buffer read after the submit. */
  resolveInto(encoder: GPUCommandEncoder): (() => void) | null {
    const n = this.keys.length;
    if (n === 0) return null;
    const keys = this.keys;
    this.keys = [];
    const bytes = n * 16;
    const read = this.device.createBuffer({ label: 'timestamps read', size: bytes, usage: MAP_READ | COPY_DST });
    encoder.resolveQuerySet(this.querySet, 0, 2 * n, this.resolve, 0);
    encoder.copyBufferToBuffer(this.resolve, 0, read, 0, bytes);
    return () => {
      this.pending.push(
        read.mapAsync(1).then(() => {
          const t = new BigUint64Array(read.getMappedRange(0, bytes));
          keys.forEach((key, i) => {
            const cls = key.split(':')[0];
            const cur = this.totals.get(cls) ?? { dispatches: 0, ms: 0 };
            const ns = t[2 * i + 1] > t[2 * i] ? Number(t[2 * i + 1] - t[2 * i]) : 0;
            this.totals.set(cls, { dispatches: cur.dispatches + 1, ms: cur.ms + ns / 1e6 });
          });
          read.unmap();
          read.destroy();
        }),
      );
    };
  }

  /** Every submitted batch's times, per kernel class (awaits the pending reads). */
  async times(): Promise<Record<string, KernelTime>> {
    await Promise.all(this.pending.splice(0));
    return Object.fromEntries(
      [...this.totals].map(([k, v]) => [k, { dispatches: v.dispatches, ms: +v.ms.toFixed(3) }]),
    );
  }

  destroy(): void {
    this.querySet.destroy();
    this.resolve.destroy();
  }
}
