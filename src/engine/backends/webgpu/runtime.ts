// The WebGPU backend's command machinery: compiled pipelines and bind groups (cached), a ring of uniform
// parameter blocks (one slot per dispatch, addressed by dynamic offset), and one command encoder that batches
// every dispatch until flush() (called by sync, download and upload). Kernels never wait on the GPU.
import { packParams, paramBytes, type WgslProgram } from '../../kernels/wgsl/common.ts';
import type { KernelProfiler } from './profiler.ts';

// WebGPU enum values (spelled out so this file needs no browser globals in Node)
export const BufferUsage = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 } as const;
const SHADER_STAGE_COMPUTE = 0x4;

/** Default bytes of the uniform ring: with 256-byte slots, 4096 dispatches per batch before a forced flush. */
export const DEFAULT_RING_BYTES = 1 << 20;

interface CompiledProgram {
  pipeline: GPUComputePipeline;
  layout: GPUBindGroupLayout;
  uniformBytes: number;
}

export class GpuRuntime {
  private readonly programs = new Map<string, CompiledProgram>();
  private readonly bindGroups = new Map<string, GPUBindGroup>();
  private readonly bufferIds = new WeakMap<GPUBuffer, number>();
  private nextBufferId = 1;
  private readonly ring: GPUBuffer;
  private readonly ringData: ArrayBuffer;
  private readonly ringView: DataView;
  private readonly slot: number;
  private ringUsed = 0;
  private encoder: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  /** dispatches recorded since the last flush */
  pending = 0;
  /** total dispatches recorded (for benchmarks) */
  dispatches = 0;
  /** dispatches recorded per program key (benchmarks; tests check which variant ran) */
  readonly perProgram = new Map<string, number>();
  /** timestamp queries per dispatch while set (WebGpuBackend.profileKernels) */
  profiler: KernelProfiler | null = null;

  constructor(
    readonly device: GPUDevice,
    private readonly ringBytes = DEFAULT_RING_BYTES,
  ) {
    this.slot = Math.max(256, device.limits.minUniformBufferOffsetAlignment);
    if (ringBytes < this.slot)
      throw new Error(`GpuRuntime: uniform ring of ${ringBytes} bytes is smaller than one ${this.slot}-byte slot`);
    this.ring = device.createBuffer({
      label: 'uniform ring',
      size: ringBytes,
      usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    });
    this.ringData = new ArrayBuffer(ringBytes);
    this.ringView = new DataView(this.ringData);
  }

  private compile(program: WgslProgram): CompiledProgram {
    const cached = this.programs.get(program.key);
    if (cached) return cached;
    const uniformBytes = paramBytes(program.params);
    const layout = this.device.createBindGroupLayout({
      label: program.key,
      entries: [
        {
          binding: 0,
          visibility: SHADER_STAGE_COMPUTE,
          buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: uniformBytes },
        },
        ...program.bindings.map((b, i): GPUBindGroupLayoutEntry => ({
          binding: i + 1,
          visibility: SHADER_STAGE_COMPUTE,
          buffer: { type: b.access === 'read' ? 'read-only-storage' : 'storage' },
        })),
      ],
    });
    const module = this.device.createShaderModule({ label: program.key, code: program.code });
    const pipeline = this.device.createComputePipeline({
      label: program.key,
      layout: this.device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: 'main' },
    });
    const compiled = { pipeline, layout, uniformBytes };
    this.programs.set(program.key, compiled);
    return compiled;
  }

  private idOf(buffer: GPUBuffer): number {
    let id = this.bufferIds.get(buffer);
    if (id === undefined) {
      id = this.nextBufferId++;
      this.bufferIds.set(buffer, id);
    }
    return id;
  }

  private bindGroup(program: WgslProgram, compiled: CompiledProgram, buffers: readonly GPUBuffer[]): GPUBindGroup {
    const key = `${program.key}|${buffers.map((b) => this.idOf(b)).join(',')}`;
    let group = this.bindGroups.get(key);
    if (!group) {
      if (this.bindGroups.size > 8192) this.bindGroups.clear();
      group = this.device.createBindGroup({
        layout: compiled.layout,
        entries: [
          { binding: 0, resource: { buffer: this.ring, offset: 0, size: compiled.uniformBytes } },
          ...buffers.map((buffer, i) => ({ binding: i + 1, resource: { buffer } })),
        ],
      });
      this.bindGroups.set(key, group);
    }
    return group;
  }

  /** Forget bind groups (after pooled buffers were destroyed). */
  forgetBindGroups(): void {
    this.bindGroups.clear();
  }

  private encoderNow(): GPUCommandEncoder {
    this.encoder ??= this.device.createCommandEncoder({ label: 'engine batch' });
    return this.encoder;
  }

  private endPass(): void {
    this.pass?.end();
    this.pass = null;
  }

  /** Record one dispatch of `program` over `grid` workgroups with `buffers` bound to its storage bindings. */
  dispatch(
    program: WgslProgram,
    buffers: readonly GPUBuffer[],
    params: Readonly<Record<string, number>>,
    grid: readonly [number, number, number],
  ): void {
    if (buffers.length !== program.bindings.length) {
      throw new Error(
        `WebGPU kernel ${program.key}: ${buffers.length} buffers for ${program.bindings.length} bindings`,
      );
    }
    if (grid[0] === 0 || grid[1] === 0 || grid[2] === 0) return;
    const compiled = this.compile(program);
    if (this.ringUsed + this.slot > this.ringBytes) this.flush();
    const offset = this.ringUsed;
    packParams(program.params, params, this.ringView, offset, program.key);
    this.ringUsed += this.slot;
    const group = this.bindGroup(program, compiled, buffers);
    if (this.profiler) {
      // one pass per dispatch, timed at its beginning and end
      if (this.profiler.full) this.flush();
      this.endPass();
      this.pass = this.encoderNow().beginComputePass({ timestampWrites: this.profiler.next(program.key) });
    }
    this.pass ??= this.encoderNow().beginComputePass();
    this.pass.setPipeline(compiled.pipeline);
    this.pass.setBindGroup(0, group, [offset]);
    this.pass.dispatchWorkgroups(grid[0], grid[1], grid[2]);
    if (this.profiler) this.endPass();
    this.pending++;
    this.dispatches++;
    this.perProgram.set(program.key, (this.perProgram.get(program.key) ?? 0) + 1);
  }

  /** Zero a buffer (or `size` bytes of it from `offset`, both multiples of 4), ordered with the recorded dispatches. */
  clear(buffer: GPUBuffer, offset = 0, size?: number): void {
    this.endPass();
    this.encoderNow().clearBuffer(buffer, offset, size);
    this.pending++;
  }

  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, bytes: number): void {
    this.endPass();
    this.encoderNow().copyBufferToBuffer(src, srcOffset, dst, dstOffset, bytes);
    this.pending++;
  }

  /** Submit everything recorded so far (uniforms first, then the commands). Does not wait. */
  flush(): void {
    this.endPass();
    if (this.ringUsed > 0) {
      this.device.queue.writeBuffer(this.ring, 0, this.ringData, 0, this.ringUsed);
      this.ringUsed = 0;
    }
    if (this.encoder) {
      const afterSubmit = this.profiler?.resolveInto(this.encoder) ?? null;
      this.device.queue.submit([this.encoder.finish()]);
      this.encoder = null;
      afterSubmit?.();
    }
    this.pending = 0;
  }

  destroy(): void {
    this.endPass();
    this.encoder = null;
    this.profiler?.destroy();
    this.profiler = null;
    this.ring.destroy();
    this.programs.clear();
    this.bindGroups.clear();
  }
}
