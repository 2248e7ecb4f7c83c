// The commands a recorded kernel run re-issues (recording.ts captures them, GpuRuntime.replay issues them): a leaf
// type shared by the runtime and the recorder, each of which would otherwise import the other.
import type { WgslProgram } from '../../kernels/wgsl/common.ts';

/** A dispatch as recorded: re-issued by GpuRuntime.replay with its uniform words copied into the next ring slot. */
export interface DispatchCommand {
  kind: 'dispatch';
  program: WgslProgram;
  pipeline: GPUComputePipeline;
  group: GPUBindGroup;
  grid: [number, number, number];
  /** the uniform block, and a view of it for rewriting */
  words: Uint32Array;
  view: DataView;
  /** the program's dispatch counter (GpuRuntime.programCounts) */
  count: { n: number };
}

/** A command recorded inside one kernel run. */
export type Command =
  | DispatchCommand
  | { kind: 'clear'; buffer: GPUBuffer; offset: number; size: number | undefined }
  | { kind: 'copy'; src: GPUBuffer; srcOffset: number; dst: GPUBuffer; dstOffset: number; bytes: number };
