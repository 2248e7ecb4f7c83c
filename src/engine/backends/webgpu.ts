// The WebGPU backend: tensors live in GPUBuffers (split into chunks when larger than one binding), kernels are
// WGSL compute shaders (src/engine/kernels/wgsl), dispatches are batched in one command encoder until sync()
// or download(). The caller hands in a GPUDevice (navigator.gpu in the page, Dawn in Node: src/cli/webgpu-device.ts);
// the engine never requests one itself.
import {
  bytesPerElement,
  numel,
  type Backend,
  type BackendLimits,
  type DType,
  type HostArray,
  type Ledger,
  type RepeatRecording,
  type Tensor,
} from '../backend.ts';
import type { KernelArgs, KernelName } from '../kernels/catalog.ts';
import { decodeF16, encodeF16 } from '../io/half-float.ts';
import { DeviceLostError } from '../device-lost.ts';
import { BufferPool, LedgerCounter, planChunks, type Chunk, type GpuStorage } from './webgpu/memory.ts';
import { BufferUsage, GpuRuntime } from './webgpu/runtime.ts';
import { webgpuKernels } from './webgpu/kernels.ts';
import { StagingRing } from './webgpu/staging.ts';
import { ErrorScopes } from './webgpu/error-scopes.ts';
import { Recorder, StepRecording, type ReplayStats } from './webgpu/recording.ts';
import { KernelProfiler, type KernelTime } from './webgpu/profiler.ts';
import type { GpuContext, KernelTuning } from './webgpu/context.ts';
import type { WgslProgram } from '../kernels/wgsl/common.ts';
import { isSoftwareGpu, subgroupSizes, type WebGpuBackendOptions } from './webgpu/options.ts';

export type { WebGpuBackendOptions } from './webgpu/options.ts';

/** Freed buffers kept for reuse after sync(): up to this many bytes, or as many as are live if that is more
 *  (a training step frees and re-allocates about its live activations); above that the pool is emptied. */
const POOL_KEEP_BYTES = 256 * 1024 * 1024;

export class WebGpuBackend implements Backend {
  readonly kind = 'webgpu' as const;
  readonly description: string;
  readonly limits: BackendLimits;
  readonly supportsF16: boolean;
  readonly prefersF16: boolean;
  readonly scratchBytes: number;
  /** whether precompile() uses createComputePipelineAsync (WebGpuBackendOptions.asyncPipelines) */
  readonly asyncPipelines: boolean;
  /** Which kernel variants may run (mutable: tests and benchmarks switch them). */
  readonly tuning: KernelTuning;
  private readonly runtime: GpuRuntime;
  private readonly pool = new BufferPool();
  /** reused mappable buffers for download() */
  private readonly staging: StagingRing;
  private readonly counter: LedgerCounter;
  private readonly storages = new Map<number, GpuStorage>();
  private readonly constants = new Map<string, GPUBuffer>();
  private nextId = 1;
  private deviceError: string | null = null;
  /** the first error an error scope reported (named: the tensor or kernel); thrown before an uncaptured one */
  private scopedError: string | null = null;
  /** set once the device is lost: every later call throws it again (a lost device never comes back) */
  private lost: DeviceLostError | null = null;
  private readonly context: GpuContext;
  private readonly recorder: Recorder;
  /** buffer and pipeline creation run in error scopes that name what failed */
  private readonly scopes: ErrorScopes;
  /** whether repeat() records and replays (WebGpuBackendOptions.replay) */
  replayEnabled: boolean;
  private destroyed = false;
  /** validation / out-of-memory errors arrive asynchronously; the next sync() or download() throws them */
  private readonly onDeviceError = (event: Event): void => {
    this.deviceError ??= (event as GPUUncapturedErrorEvent).error.message;
  };

  static create(device: GPUDevice, options: WebGpuBackendOptions = {}): WebGpuBackend {
    return new WebGpuBackend(device, options);
  }

  constructor(
    readonly device: GPUDevice,
    options: WebGpuBackendOptions = {},
  ) {
    const given = options.gpuInfo;
    // the device's own adapterInfo (newer WebGPU) tells a software adapter even when the caller passed none
    const known = (device as GPUDevice & { adapterInfo?: GPUAdapterInfo }).adapterInfo;
    const isSoftware = isSoftwareGpu(given) || isSoftwareGpu(known);
    const software = isSoftware && options.hardwareDefaults !== true;
    this.asyncPipelines = options.asyncPipelines ?? !software;
    this.tuning = {
      vec4: true,
      fewRows: options.fewRowsMatmul ?? !software,
      matvec: options.fewRowsMatmul ?? !software,
      rowReduce: options.rowNorm ?? options.fewRowsMatmul ?? !software,
      tiled: options.tiledMatmul ?? (software ? 0 : 4),
      paddedTiles: options.paddedTiles ?? true,
      flashDecode: options.flashDecode ?? !software,
      tiledAttention: options.tiledAttention ?? !software,
      flashAttention: options.flashAttention ?? !software,
      subgroups: subgroupSizes(device),
      wg: 64,
      attentionSplitKeys: 128,
    };
    const described = given ?? known;
    this.description =
      typeof described === 'string'
        ? described
        : described
          ? `${described.vendor || 'unknown vendor'} / ${described.architecture || described.device || 'unknown device'}${isSoftware ? ' (software)' : ''}`
          : 'webgpu device';
    const deviceBinding = device.limits.maxStorageBufferBindingSize;
    const binding = options.maxStorageBufferBindingSize ?? deviceBinding;
    if (binding > deviceBinding || binding % 4 !== 0 || binding < 16) {
      throw new Error(
        `WebGpuBackend: maxStorageBufferBindingSize option ${binding} must be a multiple of 4 in [16, ${deviceBinding}]`,
      );
    }
    this.limits = {
      maxBufferSize: device.limits.maxBufferSize,
      maxStorageBufferBindingSize: Math.min(binding, device.limits.maxBufferSize),
      maxTotalBytes: options.maxTotalBytes ?? Infinity,
    };
    const f16 = options.f16Storage ?? 'auto';
    this.supportsF16 = f16 !== 'never';
    this.prefersF16 = f16 === 'always' || (f16 === 'auto' && device.features.has('shader-f16'));
    this.scratchBytes = Math.min(options.scratchBytes ?? 32 * 1024 * 1024, this.limits.maxStorageBufferBindingSize);
    this.counter = new LedgerCounter(this.limits.maxTotalBytes);
    this.scopes = new ErrorScopes(device, (message) => (this.scopedError ??= message));
    this.runtime = new GpuRuntime(device, options.uniformRingBytes, this.scopes);
    this.staging = new StagingRing(device);
    device.addEventListener('uncapturederror', this.onDeviceError);
    void device.lost.then((info) => this.markLost(info));
    const dummy = this.newBuffer(16, 'dummy');
    this.context = {
      runtime: this.runtime,
      dummy,
      halfClamps: this.newBuffer(16, 'f16 clamp counter'),
      scratchBytes: this.scratchBytes,
      tuning: this.tuning,
      storage: (t, kernel, name) => this.storageOf(t, kernel, name),
      scratch: (bytes, label) => this.takeScratch(bytes, label),
      releaseScratch: (buffer) => this.giveScratch(buffer),
      constant: (key, data) => this.constantBuffer(key, data),
    };
    this.replayEnabled = options.replay ?? true;
    this.recorder = new Recorder({
      runtime: this.runtime,
      context: this.context,
      pin: (buffer) => this.pinScratch(buffer),
      unpin: (buffer) => this.giveScratch(buffer),
    });
  }

  ledger(): Ledger {
    return {
      liveBytes: this.counter.liveBytes,
      peakBytes: this.counter.peakBytes,
      liveTensors: this.counter.liveTensors,
    };
  }

  /** How many GPUBuffers hold `t` (more than 1 when it is larger than maxStorageBufferBindingSize). */
  bufferCount(t: Tensor): number {
    return this.storageOf(t, 'bufferCount', t.label).chunks.length;
  }

  /** Dispatches recorded so far per WGSL program variant (e.g. 'matmulVec4:01'). */
  dispatchesByProgram(): Record<string, number> {
    return this.runtime.programCounts();
  }

  /** Backend.precompile: runs `trace` with every kernel traced, not recorded (its downloads read zeros and map
   *  nothing), then compiles the kernels it met that were not compiled yet, in parallel. */
  async precompile(trace: () => Promise<void>): Promise<number> {
    this.checkAlive();
    if (this.runtime.tracing) throw new Error('WebGpuBackend.precompile: a trace is already running');
    const met = new Map<string, WgslProgram>();
    this.runtime.tracing = met;
    try {
      await trace();
    } finally {
      this.runtime.tracing = null;
    }
    return this.runtime.precompile(met.values(), this.asyncPipelines);
  }

  /** True while precompile's trace runs: kernels are collected, not recorded. */
  get tracing(): boolean {
    return this.runtime.tracing !== null;
  }

  /** Starts timing every dispatch with timestamp queries (needs the device feature `timestamp-query`; each
   *  dispatch then runs in its own pass). Off by default. */
  profileKernels(): void {
    this.runtime.profiler ??= new KernelProfiler(this.device);
  }

  /** GPU milliseconds and dispatches per kernel class since profileKernels() (null when not profiling). */
  async kernelTimes(): Promise<Record<string, KernelTime> | null> {
    if (!this.runtime.profiler) return null;
    this.runtime.flush();
    return this.runtime.profiler.times();
  }

  /** Backend.halfClamps: values the f16 KV-cache writers clamped to ±65,504 so far (past it a half is indeterminate). */
  async halfClamps(): Promise<number> {
    this.checkAlive();
    if (this.runtime.tracing) return 0;
    const staging = this.staging.take(4, 'f16 clamp counter');
    this.runtime.copy(this.context.halfClamps, 0, staging, 0, 4);
    this.runtime.flush();
    try {
      await staging.mapAsync(1 /* GPUMapMode.READ */, 0, 4);
    } catch (e) {
      staging.destroy();
      await this.settleLoss(250);
      this.checkAlive();
      throw e;
    }
    const count = new Uint32Array(staging.getMappedRange(0, 4).slice(0))[0];
    staging.unmap();
    this.staging.give(staging);
    return count;
  }

  /** Dispatches recorded so far (a cost measure for benchmarks). */
  get dispatchCount(): number {
    return this.runtime.dispatches;
  }

  /** A new storage buffer; `what` names it (a tensor's label, shape and dtype) when the device cannot create it. */
  private newBuffer(bytes: number, label: string, what = `'${label}'`): GPUBuffer {
    return this.scopes.run(
      () => `WebGPU alloc ${what}: a buffer of ${bytes} bytes could not be created`,
      () =>
        this.device.createBuffer({
          label,
          size: bytes,
          usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
        }),
    );
  }

  /** A zeroed buffer of `bytes`, reused from the pool when possible. */
  private zeroedBuffer(bytes: number, label: string, what: string): GPUBuffer {
    if (bytes > this.limits.maxBufferSize) {
      throw new Error(
        `WebGPU alloc ${label}: a buffer of ${bytes} bytes exceeds maxBufferSize ${this.limits.maxBufferSize}`,
      );
    }
    const reused = this.pool.take(bytes);
    if (reused) {
      this.runtime.clear(reused);
      return reused;
    }
    return this.newBuffer(bytes, label, what);
  }

  alloc(shape: readonly number[], dtype: DType = 'f32', label = 'tensor'): Tensor {
    this.checkAlive();
    for (const d of shape) {
      if (!Number.isInteger(d) || d < 0) throw new Error(`WebGPU alloc '${label}': bad shape [${shape.join(', ')}]`);
    }
    const size = numel(shape);
    const what = `'${label}' [${shape.join(', ')}] ${dtype}`;
    const plan = planChunks(shape, dtype, size, this.limits.maxStorageBufferBindingSize, label);
    const bytes = plan.bufferBytes.reduce((a, b) => a + b, 0);
    this.counter.reserve(bytes, what);
    const tensor: Tensor = { id: this.nextId++, shape: [...shape], dtype, size, label };
    const chunks: Chunk[] = [];
    try {
      plan.bufferBytes.forEach((b, i) => {
        const firstRow = i * plan.chunkRows;
        const rows = Math.min(plan.chunkRows, plan.rows - firstRow);
        chunks.push({
          buffer: this.zeroedBuffer(
            b,
            plan.bufferBytes.length > 1 ? `${label}#${i}` : label,
            plan.bufferBytes.length > 1 ? `${what} (buffer ${i + 1} of ${plan.bufferBytes.length})` : what,
          ),
          firstElem: firstRow * plan.rowElems,
          elems: rows * plan.rowElems,
          firstRow,
          rows,
        });
      });
    } catch (e) {
      this.counter.release(bytes);
      for (const c of chunks) this.pool.give(c.buffer);
      throw e;
    }
    this.counter.liveTensors++;
    this.storages.set(tensor.id, { tensor, rowElems: plan.rowElems, chunkRows: plan.chunkRows, chunks, bytes });
    return tensor;
  }

  private storageOf(t: Tensor, kernel: string, name: string): GpuStorage {
    const s = this.storages.get(t.id);
    if (!s || s.tensor !== t) {
      throw new Error(
        `WebGPU ${kernel}: tensor '${name}' (${t.label}, id ${t.id}) is not live on this backend (freed or foreign)`,
      );
    }
    return s;
  }

  private takeScratch(bytes: number, label: string): GPUBuffer {
    const size = Math.max(256, Math.ceil(bytes / 256) * 256);
    this.counter.reserve(size, `scratch '${label}'`);
    const buffer = this.pool.take(size) ?? this.newBuffer(size, label);
    this.recorder.tookScratch(buffer);
    return buffer;
  }

  /** Takes a released scratch buffer back out of the pool for a recording (counted as live until given back). */
  private pinScratch(buffer: GPUBuffer): boolean {
    if (!this.pool.remove(buffer)) return false;
    try {
      this.counter.reserve(buffer.size, 'recorded scratch');
    } catch {
      this.pool.give(buffer);
      return false;
    }
    return true;
  }

  private giveScratch(buffer: GPUBuffer): void {
    this.counter.release(buffer.size);
    this.pool.give(buffer); // safe: later users of the pooled buffer are recorded after the current ones
  }

  private constantBuffer(key: string, data: () => Float32Array | Uint32Array): GPUBuffer {
    let buffer = this.constants.get(key);
    if (!buffer) {
      const values = data();
      buffer = this.newBuffer(Math.max(16, Math.ceil(values.byteLength / 16) * 16), `constant ${key}`);
      this.device.queue.writeBuffer(buffer, 0, values.buffer, values.byteOffset, values.byteLength);
      this.constants.set(key, buffer);
    }
    return buffer;
  }

  upload(t: Tensor, data: HostArray, elementOffset = 0): void {
    this.checkAlive();
    const s = this.storageOf(t, 'upload', t.label);
    const isFloatData = data instanceof Float32Array || data instanceof Uint16Array;
    const ok = t.dtype === 'f32' ? data instanceof Float32Array : t.dtype === 'f16' ? isFloatData : !isFloatData;
    if (!ok) {
      const wanted =
        t.dtype === 'f32'
          ? 'a Float32Array'
          : t.dtype === 'f16'
            ? 'a Float32Array or Uint16Array (f16 bits)'
            : 'an Int32Array or Uint32Array';
      throw new Error(`WebGPU upload '${t.label}' (${t.dtype}): expected ${wanted}, got ${data.constructor.name}`);
    }
    // f16 tensors take f16 bits, or f32 values rounded here (round to nearest even)
    if (t.dtype === 'f16' && data instanceof Float32Array) data = encodeF16(data);
    const end = elementOffset + data.length;
    if (elementOffset < 0 || end > t.size) {
      throw new Error(`WebGPU upload '${t.label}': elements [${elementOffset}, ${end}) outside the tensor's ${t.size}`);
    }
    if (t.dtype === 'f16' && (elementOffset % 2 === 1 || (data.length % 2 === 1 && end !== t.size))) {
      throw new Error(
        `WebGPU upload '${t.label}' (f16): offset ${elementOffset} and length ${data.length} must be even (except at the end)`,
      );
    }
    // keep the program order: work recorded before this upload must see the old contents
    if (this.runtime.pending > 0) this.runtime.flush();
    const bpe = bytesPerElement(t.dtype);
    for (const c of s.chunks) {
      const from = Math.max(elementOffset, c.firstElem);
      const to = Math.min(end, c.firstElem + c.elems);
      if (from >= to) continue;
      let part = data.subarray(from - elementOffset, to - elementOffset);
      if ((part.byteLength & 3) !== 0) {
        const padded = new Uint16Array(part.length + 1); // only f16 tails reach here
        padded.set(part as Uint16Array);
        part = padded;
      }
      this.device.queue.writeBuffer(
        c.buffer,
        (from - c.firstElem) * bpe,
        part.buffer,
        part.byteOffset,
        part.byteLength,
      );
    }
  }

  async download(t: Tensor): Promise<HostArray> {
    this.checkAlive();
    const s = this.storageOf(t, 'download', t.label);
    // a trace's kernels did not run: it reads zeros, and nothing is mapped
    if (this.runtime.tracing)
      return t.dtype === 'i32'
        ? new Int32Array(t.size)
        : t.dtype === 'u32'
          ? new Uint32Array(t.size)
          : new Float32Array(t.size);
    const bpe = bytesPerElement(t.dtype);
    const out = new ArrayBuffer(Math.ceil((t.size * bpe) / 4) * 4);
    // one mappable staging buffer per chunk: each fits maxBufferSize even when the whole tensor does not
    const stagings = s.chunks.map((c) => {
      const bytes = Math.max(4, Math.ceil((c.elems * bpe) / 4) * 4);
      const staging = this.staging.take(bytes, `download ${t.label}`);
      if (c.elems > 0) this.runtime.copy(c.buffer, 0, staging, 0, bytes);
      return { staging, at: c.firstElem * bpe, bytes: c.elems * bpe, mapped: bytes };
    });
    this.runtime.flush();
    await this.scopes.settled();
    try {
      // (only the bytes copied are mapped: the reused buffer may be larger)
      await Promise.all(stagings.map(({ staging, mapped }) => staging.mapAsync(1 /* GPUMapMode.READ */, 0, mapped)));
      for (const { staging, at, bytes, mapped } of stagings) {
        new Uint8Array(out, at, bytes).set(new Uint8Array(staging.getMappedRange(0, mapped), 0, bytes));
        staging.unmap();
      }
      for (const { staging } of stagings) this.staging.give(staging);
    } catch (e) {
      for (const { staging } of stagings) staging.destroy(); // (a failed map may leave a buffer mapped or pending)
      // a map fails on a lost device before its lost promise is seen here; it is settled by now when it is the cause
      await this.settleLoss(250);
      this.checkAlive();
      const error = this.scopedError ?? this.deviceError;
      throw error ? new Error(`WebGPU download '${t.label}': ${error}`) : e;
    }
    this.checkAlive();
    this.throwDeviceError();
    const data = out.slice(0, t.size * bpe);
    if (t.dtype === 'f32') return new Float32Array(data);
    if (t.dtype === 'f16') return decodeF16(new Uint16Array(data));
    if (t.dtype === 'i32') return new Int32Array(data);
    return new Uint32Array(data);
  }

  run<K extends KernelName>(kernel: K, args: KernelArgs<K>): void {
    this.checkAlive();
    const impl = webgpuKernels[kernel] as (ctx: GpuContext, a: KernelArgs<K>) => void;
    if (!impl) throw new Error(`WebGPU: no kernel named '${String(kernel)}'`);
    if (this.recorder.active) this.recorder.run(kernel, args, impl);
    else impl(this.context, args);
  }

  /** Backend.repeat: the body's kernel runs are compared with the previous call's recording and re-issued from it
   *  where equal (webgpu/recording.ts). Plain runs while tracing, profiling or with replay off. */
  repeat(recording: RepeatRecording | null, body: () => void): RepeatRecording {
    this.checkAlive();
    if (recording !== null && !(recording instanceof StepRecording))
      throw new Error('WebGPU repeat: not a recording of this backend');
    if (!this.replayEnabled || this.runtime.tracing || this.runtime.profiler) {
      recording?.dispose();
      body();
      return recording ?? new StepRecording(this.recorder);
    }
    return this.recorder.repeat(recording, body);
  }

  /** Dispatches re-issued by repeat() from recordings (patched: of those, the ones whose uniforms were rewritten)
   *  and encoded through the kernels' host code inside repeat(). */
  replayStats(): ReplayStats {
    return { ...this.recorder.stats };
  }

  free(t: Tensor): void {
    const s = this.storages.get(t.id);
    if (!s || s.tensor !== t) throw new Error(`WebGPU free '${t.label}': tensor ${t.id} is not live (double free?)`);
    this.storages.delete(t.id);
    this.recorder.freed(t.id);
    for (const c of s.chunks) this.pool.give(c.buffer);
    this.counter.release(s.bytes);
    this.counter.liveTensors--;
  }

  async sync(): Promise<void> {
    this.checkAlive();
    this.runtime.flush();
    await this.device.queue.onSubmittedWorkDone();
    await this.scopes.settled();
    await this.settleLoss();
    this.checkAlive();
    if (this.pool.pooledBytes > Math.max(POOL_KEEP_BYTES, this.counter.liveBytes)) {
      this.pool.drain();
      this.runtime.forgetBindGroups();
    }
    this.throwDeviceError();
  }

  private throwDeviceError(): void {
    const message = this.scopedError ?? this.deviceError;
    if (message) {
      this.scopedError = null;
      this.deviceError = null;
      throw new Error(`WebGPU device error: ${message}`);
    }
  }

  private checkAlive(): void {
    if (this.destroyed) throw new Error('WebGPU backend used after destroy()');
    if (this.lost) throw new DeviceLostError(this.lost.reason, this.lost.detail);
  }

  /** Whether the device was lost (then every call but free() and destroy() throws a DeviceLostError). */
  get isLost(): boolean {
    return this.lost !== null;
  }

  private markLost(info: GPUDeviceLostInfo): void {
    if (this.destroyed || this.lost) return;
    this.lost = new DeviceLostError(info.reason ?? 'unknown', info.message ?? '');
    this.deviceError = null;
  }

  /** Takes the device's lost promise into account when it has already settled, or within `waitMs` (a failed map:
   *  some implementations reject the map before the lost promise settles). */
  private async settleLoss(waitMs = 0): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const none =
      waitMs > 0 ? new Promise<null>((r) => (timer = setTimeout(() => r(null), waitMs))) : Promise.resolve(null);
    const info = await Promise.race([this.device.lost, none]);
    if (timer !== undefined) clearTimeout(timer);
    if (info) this.markLost(info);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.device.removeEventListener('uncapturederror', this.onDeviceError);
    for (const s of this.storages.values()) for (const c of s.chunks) c.buffer.destroy();
    this.storages.clear();
    this.pool.drain();
    this.context.dummy.destroy();
    this.context.halfClamps.destroy();
    for (const b of this.constants.values()) b.destroy();
    this.constants.clear();
    this.staging.destroy();
    this.runtime.destroy();
  }
}
