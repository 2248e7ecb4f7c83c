// The one small interface every compute backend implements (cpu, webgpu, wasm).
// The engine is handed a Backend; it never acquires a device itself (app/ and cli/ do that).
// Kernels are named in kernels/catalog.ts; each backend implements every kernel there.
import type { KernelName, KernelArgs } from './kernels/catalog.ts';
import type { DType, HostArray, Tensor } from './tensor.ts';

export type { DType, HostArray, Tensor } from './tensor.ts';
export { bytesPerElement, numel } from './tensor.ts';

export interface BackendLimits {
  /** largest single buffer, bytes */
  maxBufferSize: number;
  /** largest range bindable to one kernel, bytes (tensors over this are split by the caller) */
  maxStorageBufferBindingSize: number;
  /** total bytes the backend allows live at once (Infinity when unknown) */
  maxTotalBytes: number;
}

/** Allocation ledger: benchmarks read peak bytes from here. */
export interface Ledger {
  liveBytes: number;
  peakBytes: number;
  liveTensors: number;
}

/** What Backend.repeat keeps between calls (opaque to the caller); dispose() frees what it holds. */
export interface RepeatRecording {
  dispose(): void;
}

/** The three kernel sets: the TypeScript reference, WebAssembly SIMD, WebGPU. One list for every menu and flag. */
export const BACKEND_KINDS = ['cpu', 'wasm', 'webgpu'] as const;
export type BackendKind = (typeof BACKEND_KINDS)[number];

export interface Backend {
  readonly kind: BackendKind;
  /** human-readable device description, e.g. "google / swiftshader (fallback)" */
  readonly description: string;
  readonly limits: BackendLimits;
  /** true when weights may be stored as f16 halves (WebGPU on any adapter, WASM); accumulation is always f32 */
  readonly supportsF16: boolean;
  /** true when baseDtype 'auto' stores a LoRA run's frozen base as f16 here (WebGPU with `shader-f16`, where half
   *  precision is the hardware's norm); absent means false */
  readonly prefersF16?: boolean;
  /** true when weights may be stored as bfloat16 (the WASM backend); absent means false */
  readonly supportsBf16?: boolean;
  ledger(): Ledger;
  /** Allocate; throws an Error naming needed vs available bytes when it cannot fit. A new tensor reads as zeros,
   *  except with `uninitialized`: the caller writes every element before reading it, so a backend may hand out
   *  the block as it is (the WASM backend then skips zero-filling it). */
  alloc(shape: readonly number[], dtype?: DType, label?: string, uninitialized?: boolean): Tensor;
  upload(t: Tensor, data: HostArray, elementOffset?: number): void;
  download(t: Tensor): Promise<HostArray>;
  /** Optional (cpu, wasm: tensors in host memory): copies f32 tensor `t` into `out` (length t.size) instead of a new
   *  host array. Absent: device-ops.ts downloadInto copies what download returns. */
  downloadInto?(t: Tensor, out: Float32Array): Promise<void>;
  run<K extends KernelName>(kernel: K, args: KernelArgs<K>): void;
  free(t: Tensor): void;
  /** Wait until all submitted work is done (no-op on cpu). */
  sync(): Promise<void>;
  /** Backends that compile their kernels (WebGPU) run `trace` with every kernel traced, not run (its results and
   *  downloads mean nothing; it must not change lasting state through kernels), then compile the kernels it met,
   *  in parallel and off the calling thread where they can, so that the real run after it compiles nothing.
   *  Resolves to the number compiled. Absent: nothing to compile. */
  precompile?(trace: () => Promise<void>): Promise<number>;
  /** Optional (WebGPU): runs `body`, a sequence of kernel runs the caller repeats with mostly the same tensors and
   *  parameters (a decode step), and returns its recording; given the previous call's recording, runs equal to
   *  recorded ones are re-issued from it without the kernels' host code (runs that differ only in positions or
   *  cache lengths get their uniforms rewritten). Results are those of running `body` plainly. Freeing a tensor
   *  the recording uses empties it. Absent: the caller runs `body` itself. */
  repeat?(recording: RepeatRecording | null, body: () => void): RepeatRecording;
  /** Optional (WASM with a helper thread): runs `body`, kernel runs over B sequences in which each run reads and
   *  writes only its own sequences' rows (a decode step's layers), with the sequences shared between the threads
   *  as one job instead of one per kernel. Results are those of running `body` plainly, which it does where a run
   *  cannot be shared. `body` only runs kernels (no alloc, free, upload or download). Absent: the caller runs it. */
  bySequence?(B: number, body: () => void): void;
  /** Optional (WebGPU): how many values the kernels writing an f16 KV cache clamped to ±65,504 so far (the
   *  largest half; past it WGSL's pack2x16float is indeterminate). Absent: the backend never clamps. */
  halfClamps?(): Promise<number>;
  destroy(): void;
}
