// The WebGPU backend's command machinery: compiled pipelines and bind groups (cached), a ring of uniform
// parameter blocks (one slot per dispatch, addressed by dynamic offset), and one command encoder that batches
// every dispatch until flush() (called by sync, download and upload). Kernels never wait on the GPU.
// Pipelines are compiled on first use (createComputePipeline, which blocks the calling thread), unless a trace
// met them first: while `tracing`, dispatch() records nothing and collects the programs not compiled yet, which
// precompile() then creates in parallel with createComputePipelineAsync (the sync call where that is absent).
import { packParams, paramBytes, type WgslProgram } from '../../kernels/wgsl/common.ts';
import type { KernelProfiler } from './profiler.ts';
import type { Command } from './commands.ts';
import type { ErrorScopes } from './error-scopes.ts';

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
  private readonly ringWords: Uint32Array;
  /** the dynamic offset passed with each bind group (one array, rewritten per dispatch) */
  private readonly dynOffset = [0];
  private readonly slot: number;
  private ringUsed = 0;
  private encoder: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  /** dispatches recorded since the last flush */
  pending = 0;
  /** total dispatches recorded (for benchmarks) */
  dispatches = 0;
  /** dispatches recorded per program key (benchmarks; tests check which variant ran); see programCounts */
  private readonly perProgram = new Map<string, { n: number }>();
  /** while set, every command recorded is appended here too (recording.ts replays them) */
  capture: Command[] | null = null;
  /** timestamp queries per dispatch while set (WebGpuBackend.profileKernels) */
  profiler: KernelProfiler | null = null;

  constructor(
    readonly device: GPUDevice,
    private readonly ringBytes = DEFAULT_RING_BYTES,
    /** names the kernel whose pipeline fails to compile (absent: the error is the device's uncaptured one) */
    private readonly scopes: ErrorScopes | null = null,
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
    this.ringWords = new Uint32Array(this.ringData);
  }

  /** Dispatches recorded so far per program key. */
  programCounts(): Record<string, number> {
    return Object.fromEntries([...this.perProgram].map(([k, c]) => [k, c.n]));
  }

  /** The layout, module and descriptor of a program's pipeline. */
  private describe(program: WgslProgram): {
    layout: GPUBindGroupLayout;
    uniformBytes: number;
    descriptor: GPUComputePipelineDescriptor;
  } {
    const uniformBytes = paramBytes(program.params);
    const maxBuffers = this.device.limits.maxStorageBuffersPerShaderStage;
    if (program.bindings.length > maxBuffers) {
      throw new Error(
        `WebGPU kernel ${program.key}: binds ${program.bindings.length} storage buffers but this device allows ` +
          `${maxBuffers} per stage (maxStorageBuffersPerShaderStage)`,
      );
    }
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
    const descriptor: GPUComputePipelineDescriptor = {
      label: program.key,
      layout: this.device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: 'main' },
    };
    return { layout, uniformBytes, descriptor };
  }

  /** Runs `create` in error scopes that name the program when its module or pipeline fails to compile. */
  private scoped<T>(program: WgslProgram, create: () => T): T {
    return this.scopes
      ? this.scopes.run(() => `WebGPU kernel ${program.key}: the pipeline did not compile`, create)
      : create();
  }

  private compile(program: WgslProgram): CompiledProgram {
    const cached = this.programs.get(program.key);
    if (cached) return cached;
    const compiled = this.scoped(program, () => {
      const { layout, uniformBytes, descriptor } = this.describe(program);
      return { pipeline: this.device.createComputePipeline(descriptor), layout, uniformBytes };
    });
    this.programs.set(program.key, compiled);
    return compiled;
  }

  /** Programs met by dispatch() while set, not yet compiled (dispatch records nothing then). */
  tracing: Map<string, WgslProgram> | null = null;

  /** Compiles the programs not compiled yet, all at once: with `useAsync`, createComputePipelineAsync where the
   *  device has it (the compiler works off the calling thread), else one createComputePipeline each. Returns how
   *  many it compiled. */
  async precompile(programs: Iterable<WgslProgram>, useAsync = true): Promise<number> {
    const todo = [...programs].filter((p) => !this.programs.has(p.key));
    const asyncCreate = useAsync && (this.device as Partial<GPUDevice>).createComputePipelineAsync;
    await Promise.all(
      todo.map(async (program) => {
        const { layout, uniformBytes, descriptor } = this.scoped(program, () => this.describe(program));
        let pipeline: GPUComputePipeline;
        try {
          pipeline = asyncCreate
            ? await this.device.createComputePipelineAsync(descriptor)
            : this.scoped(program, () => this.device.createComputePipeline(descriptor));
        } catch (e) {
          throw new Error(`WebGPU kernel ${program.key}: the pipeline did not compile: ${(e as Error).message}`, {
            cause: e,
          });
        }
        if (!this.programs.has(program.key)) this.programs.set(program.key, { pipeline, layout, uniformBytes });
      }),
    );
    return todo.length;
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
    const maxGroups = this.device.limits.maxComputeWorkgroupsPerDimension;
    if (grid[0] > maxGroups || grid[1] > maxGroups || grid[2] > maxGroups) {
      throw new Error(
        `WebGPU kernel ${program.key}: a grid of [${grid.join(', ')}] workgroups passes ` +
          `maxComputeWorkgroupsPerDimension (${maxGroups})`,
      );
    }
    if (this.tracing) {
      if (!this.programs.has(program.key)) this.tracing.set(program.key, program);
      return;
    }
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
    let count = this.perProgram.get(program.key);
    if (!count) this.perProgram.set(program.key, (count = { n: 0 }));
    count.n++;
    if (this.capture) {
      const words = new Uint32Array(this.ringData.slice(offset, offset + compiled.uniformBytes));
      const g: [number, number, number] = [grid[0], grid[1], grid[2]];
      const view = new DataView(words.buffer);
      this.capture.push({ kind: 'dispatch', program, pipeline: compiled.pipeline, group, grid: g, words, view, count });
    }
  }

  /** Re-issues a recorded command; a dispatch's uniform words go to the next ring slot. */
  replay(c: Command): void {
    if (c.kind === 'clear') return this.clear(c.buffer, c.offset, c.size);
    if (c.kind === 'copy') return this.copy(c.src, c.srcOffset, c.dst, c.dstOffset, c.bytes);
    if (this.ringUsed + this.slot > this.ringBytes) this.flush();
    const offset = this.ringUsed;
    this.ringWords.set(c.words, offset >>> 2);
    this.ringUsed += this.slot;
    this.pass ??= this.encoderNow().beginComputePass();
    this.pass.setPipeline(c.pipeline);
    this.dynOffset[0] = offset;
    this.pass.setBindGroup(0, c.group, this.dynOffset);
    this.pass.dispatchWorkgroups(c.grid[0], c.grid[1], c.grid[2]);
    this.pending++;
    this.dispatches++;
    c.count.n++;
  }

  /** Zero a buffer (or `size` bytes of it from `offset`, both multiples of 4), ordered with the recorded dispatches. */
  clear(buffer: GPUBuffer, offset = 0, size?: number): void {
    this.capture?.push({ kind: 'clear', buffer, offset, size });
    this.endPass();
    this.encoderNow().clearBuffer(buffer, offset, size);
    this.pending++;
  }

  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, bytes: number): void {
    this.capture?.push({ kind: 'copy', src, srcOffset, dst, dstOffset, bytes });
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
