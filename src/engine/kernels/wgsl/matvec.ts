// WGSL matrix-vector kernel for decode (M <= 8 rows of A: one token per sequence) against an nn.Linear weight:
// C[M,N] = alpha * A[M,K] @ B[N,K]^T + beta * C (+ bias), transA = 0, transB = 1, same addressing as matmul.ts,
// for operands aligned to 4 elements (K, lda, ldb, offA, offB multiples of 4). A workgroup of 256 threads computes
// COLS output columns for every row of A: LANES = 256 / COLS lanes per column split K between them and read
// the weight row in vec4 steps side by side (lane j reads elements 4j, 4(j + LANES), ...: consecutive lanes read
// consecutive 16 bytes, so the weight stream is coalesced), each lane keeps one partial sum per row of A, and the
// lanes' partials are added in workgroup memory (log2 LANES barrier steps). Long K (down_proj's 4,864) gets fewer
// columns and more lanes per workgroup (split-K inside the workgroup), so N = 896 still makes 448 workgroups.
// An f16 weight is read as vec2<u32> (four halves) and unpacked; arithmetic is f32.
// Subgroup variant (devices with the `subgroups` feature; sg = the adapter's [min, max] subgroup size, max <= LANES):
// each subgroup adds its lanes' partials with subgroupAdd, its first lane stores the sum, and after one barrier lane 0
// of each column adds the LANES / subgroup_size sums, instead of log2 LANES barrier steps. It assumes a subgroup is
// a run of consecutive invocation indices (so it lies inside one column: LANES is a multiple of its size), as
// Vulkan, Metal and D3D12 form compute subgroups.
import { cached, header, type ElemType, type WgslProgram } from './common.ts';
import { matmulParams } from './matmul.ts';

export const MATVEC_MAX_M = 8;
const THREADS = 256;

/** Output columns per workgroup for a reduction length K (more lanes per column when K is long). */
export function matvecCols(K: number): 2 | 4 | 8 {
  return K >= 2048 ? 2 : K >= 512 ? 4 : 8;
}

function buildMatvecProgram(
  cols: 2 | 4 | 8,
  bElem: 'f32' | 'f16',
  biasElem: ElemType,
  sg: readonly [number, number] | null = null,
): WgslProgram {
  const lanes = THREADS / cols;
  if (sg && (sg[1] > lanes || lanes % sg[1] !== 0 || sg[0] < 1))
    throw new Error(`matvec: subgroup sizes [${sg.join(', ')}] do not divide ${lanes} lanes`);
  const bindings = [
    { name: 'a', elem: 'f32', access: 'read', declare: false },
    { name: 'b', elem: bElem, access: 'read', declare: false },
    { name: 'bias', elem: biasElem, access: 'read' },
    { name: 'c', elem: 'f32', access: 'read_write' },
  ] as const;
  const bView =
    bElem === 'f32'
      ? `@group(0) @binding(2) var<storage, read> b: array<vec4<f32>>;\nfn b4(i: u32) -> vec4<f32> { return b[i]; }`
      : `@group(0) @binding(2) var<storage, read> b: array<vec2<u32>>;\n` +
        `fn b4(i: u32) -> vec4<f32> { let w = b[i]; return vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y)); }`;
  const MM = MATVEC_MAX_M;
  const nsg = sg ? lanes / sg[0] : 0; // most subgroups per column
  const reduce = sg
    ? `  for (var m = 0u; m < MM; m = m + 1u) {
    let s = subgroupAdd(acc[m]);
    if (sid == 0u) { part[(col * MM + m) * ${nsg}u + lane / ssz] = s; }
  }
  workgroupBarrier();
  if (lane == 0u && n < P.N) {
    let groups = LANES / ssz;
    for (var m = 0u; m < P.M; m = m + 1u) {
      var total = 0.0;
      for (var j = 0u; j < groups; j = j + 1u) { total = total + part[(col * MM + m) * ${nsg}u + j]; }
      part[(col * MM + m) * ${nsg}u] = total;
    }
  }`
    : `  for (var m = 0u; m < MM; m = m + 1u) { part[(col * MM + m) * LANES + lane] = acc[m]; }
  workgroupBarrier();
  for (var s = LANES / 2u; s > 0u; s = s >> 1u) {
    if (lane < s) {
      for (var m = 0u; m < P.M; m = m + 1u) {
        let i = (col * MM + m) * LANES + lane;
        part[i] = part[i] + part[i + s];
      }
    }
    workgroupBarrier();
  }`;
  const stride = sg ? `${nsg}u` : 'LANES';
  const code = `${sg ? 'enable subgroups;\n' : ''}${header(matmulParams, bindings)}
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
${bView}

const LANES = ${lanes}u;
const MM = ${MM}u;
var<workgroup> part: array<f32, ${cols * MM * (sg ? nsg : lanes)}>;   // [(col * MM + m) * stride + lane or subgroup]

@compute @workgroup_size(${lanes}, ${cols})
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>${sg ? ', @builtin(subgroup_invocation_id) sid: u32, @builtin(subgroup_size) ssz: u32' : ''}) {
  let lane = lid.x;
  let col = lid.y;
  let n = wid.x * ${cols}u + col;
  let bRow = (P.offB + min(n, P.N - 1u) * P.ldb) >> 2u;
  let aRow = P.offA >> 2u;
  let lda4 = P.lda >> 2u;
  let K4 = P.K >> 2u;
  var acc: array<f32, ${MM}>;
  for (var m = 0u; m < MM; m = m + 1u) { acc[m] = 0.0; }
  for (var k = lane; k < K4; k = k + LANES) {
    let bv = b4(bRow + k);
    for (var m = 0u; m < P.M; m = m + 1u) { acc[m] = acc[m] + dot(a[aRow + m * lda4 + k], bv); }
  }
${reduce}
  if (lane == 0u && n < P.N) {
    var biasv = 0.0;
    if (P.hasBias == 1u) { biasv = ld_bias(P.offBias + n); }
    for (var m = 0u; m < P.M; m = m + 1u) {
      let at = P.offC + m * P.ldc + n;
      var out = P.alpha * part[(col * MM + m) * ${stride}] + biasv;
      if (P.beta != 0.0) { out = out + P.beta * c[at]; }
      c[at] = out;
    }
  }
}
`;
  return {
    key: `matvec:${cols}:${bElem}:${biasElem}${sg ? `:sg${sg[0]}-${sg[1]}` : ''}`,
    code,
    bindings,
    params: matmulParams,
  };
}

export const matvecProgram = cached(buildMatvecProgram);
