// Mappable staging buffers for readbacks, kept and reused: a decode step reads 16 bytes per sequence back every
// step, and creating (then destroying) a MAP_READ buffer for each readback costs a host call pair and an allocation
// each time. Buffers are sized in powers of two (at least 256 bytes) and owned by one readback at a time; idle ones
// are kept up to IDLE_KEEP_BYTES in all (larger readbacks, e.g. a whole adapter, get a buffer destroyed after use).
import { BufferUsage } from './runtime.ts';

const IDLE_KEEP_BYTES = 16 * 1024 * 1024;
const MIN_BYTES = 256;

export class StagingRing {
  private readonly idle: GPUBuffer[] = [];
  private idleBytes = 0;
  /** buffers created so far (tests and benchmarks) */
  created = 0;

  constructor(private readonly device: GPUDevice) {}

  /** A MAP_READ | COPY_DST buffer of at least `bytes`, unmapped, owned by the caller until give(). */
  take(bytes: number, label: string): GPUBuffer {
    const size = Math.max(MIN_BYTES, 2 ** Math.ceil(Math.log2(Math.max(bytes, 1))));
    const i = this.idle.findIndex((b) => b.size === size);
    if (i >= 0) {
      const [buf] = this.idle.splice(i, 1);
      this.idleBytes -= buf.size;
      return buf;
    }
    this.created++;
    return this.device.createBuffer({
      label: `staging ${label}`,
      size,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
  }

  /** Returns an unmapped buffer from take(): kept for reuse while the idle total stays small, else destroyed. */
  give(buf: GPUBuffer): void {
    if (this.idleBytes + buf.size > IDLE_KEEP_BYTES) {
      buf.destroy();
      return;
    }
    this.idle.push(buf);
    this.idleBytes += buf.size;
  }

  destroy(): void {
    for (const b of this.idle) b.destroy();
    this.idle.length = 0;
    this.idleBytes = 0;
  }
}
