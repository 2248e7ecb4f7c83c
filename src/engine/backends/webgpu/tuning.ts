// Which WebGPU kernel variants the backend may pick: a leaf type shared by the backend, its context and the
// matmul host code (each of which would otherwise import another for it).

/** Which kernel variants the backend may pick (tests switch them to compare against the plain kernels). */
export interface KernelTuning {
  /** the vec4 kernel for aligned f32 operands */
  vec4: boolean;
  /** the few-rows kernel (M <= 8, transB = 1): coalesced weight reads for decode; costly on SwiftShader */
  fewRows: boolean;
  /** the matrix-vector kernel (kernels/wgsl/matvec.ts: M <= 8, transA = 0, transB = 1, operands aligned to 4):
   *  vec4 weight reads, split-K over the workgroup's lanes; preferred to fewRows where it applies; costly on
   *  SwiftShader (barriers) */
  matvec: boolean;
  /** rmsnorm forward and backward with workgroup-memory reductions (kernels/wgsl/norm.ts rmsnormRows,
   *  norm-rows.ts): one workgroup per row for y and dx, 4 row lanes per feature for dw, instead of one thread per
   *  row (per feature); costly on SwiftShader (barriers) */
  rowReduce: boolean;
  /** the adapter's [min, max] subgroup size when the device has the `subgroups` feature (and max <= 128): the
   *  matrix-vector kernel then reduces with subgroupAdd; null: workgroup memory only */
  subgroups: readonly [number, number] | null;
  /** threads per workgroup of the 1-D kernels (elementwise, norms, rope, attention, embedding, reductions,
   *  log-softmax pieces); a template parameter of their WGSL, default 64 */
  wg: number;
  /** the tiled matmul with workgroup memory (kernels/wgsl/matmul-tiled.ts) for M >= 16 and N >= 16: outputs per
   *  thread and side (tile 16·t), or 0 for off; costly on SwiftShader (barriers) */
  tiled: 0 | 2 | 4;
  /** the tiled matmul with padded workgroup tiles (no bank conflicts on the staging stores) and vec4 staging loads
   *  where the operands are aligned to 4 (scalar loads otherwise); false: the unpadded scalar-load layout */
  paddedTiles: boolean;
  /** attention with one query per sequence (decode): flash-decoding (kernels/wgsl/attention-decode.ts), a
   *  workgroup per (sequence, KV head, key split) whose query heads share each K/V load; costly on SwiftShader */
  flashDecode: boolean;
  /** the tiled attention backward (kernels/wgsl/attention-backward-tiled.ts): query / key rows staged in workgroup
   *  memory per block of 64 keys / queries, dk and dv in one kernel; costly on SwiftShader (barriers) */
  tiledAttention: boolean;
  /** the flash-attention forward (kernels/wgsl/attention-flash.ts) for prefill and scoring (T > 1 queries per
   *  sequence; below 16 not where the keys would be split): K/V tiles in workgroup memory, online softmax; costly
   *  on SwiftShader (barriers) */
  flashAttention: boolean;
  /** attention: with fewer than 2048 queries, split the visible keys over threads once there are more than
   *  this many (0 = never split) */
  attentionSplitKeys: number;
}
