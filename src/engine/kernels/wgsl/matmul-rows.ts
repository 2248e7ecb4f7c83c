// WGSL matmul for a few rows (decode: one token per sequence, M <= 8) against an nn.Linear weight
// (transB = 1, B stored [N,K]): C[M,N] = alpha * op(A) @ B^T + beta * C (+ bias), same addressing as matmul.ts.
// With M this small the 4x4 register-block kernel has too few threads to keep a real GPU busy and each thread
// walks its own weight rows (uncoalesced). Here a workgroup of 32 lanes x 8 columns reads 8 weight rows with
// the 32 lanes side by side along K (coalesced), keeps one partial sum per row of A, and adds the 32 lanes'
// partials in workgroup memory (5 barrier steps). Barriers are slow on SwiftShader, so the backend uses this
// kernel on hardware adapters only (WebGpuBackend.tuning.fewRows).
import { cached, header, type ElemType, type WgslProgram } from './common.ts';
import { matmulParams } from './matmul.ts';

/** Rows of A handled by one dispatch of the few-rows kernel. */
export const FEW_ROWS_MAX_M = 8;
/** Output columns per workgroup. */
export const FEW_ROWS_COLS = 8;

function buildMatmulFewRowsProgram(transA: 0 | 1, a: ElemType, b: ElemType, bias: ElemType): WgslProgram {
  const bindings = [
    { name: 'a', elem: a, access: 'read' },
    { name: 'b', elem: b, access: 'read' },
    { name: 'bias', elem: bias, access: 'read' },
    { name: 'c', elem: 'f32', access: 'read_write' },
  ] as const;
  const MM = FEW_ROWS_MAX_M;
  const aIdx = transA ? 'P.offA + k * P.lda + m' : 'P.offA + m * P.lda + k';
  const code = `${header(matmulParams, bindings)}

const MM = ${MM}u;
var<workgroup> part: array<f32, ${MM * 32 * FEW_ROWS_COLS}>;   // [(col * MM + m) * 32 + lane]

@compute @workgroup_size(32, ${FEW_ROWS_COLS})
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let lane = lid.x;
  let col = lid.y;
  let n = wid.x * ${FEW_ROWS_COLS}u + col;
  let bRow = P.offB + min(n, P.N - 1u) * P.ldb;
  var acc: array<f32, ${MM}>;
  for (var m = 0u; m < MM; m = m + 1u) { acc[m] = 0.0; }
  for (var k = lane; k < P.K; k = k + 32u) {
    let bv = ld_b(bRow + k);
    for (var m = 0u; m < P.M; m = m + 1u) { acc[m] = acc[m] + ld_a(${aIdx}) * bv; }
  }
  for (var m = 0u; m < MM; m = m + 1u) { part[(col * MM + m) * 32u + lane] = acc[m]; }
  workgroupBarrier();
  for (var s = 16u; s > 0u; s = s >> 1u) {
    if (lane < s) {
      for (var m = 0u; m < MM; m = m + 1u) {
        let i = (col * MM + m) * 32u + lane;
        part[i] = part[i] + part[i + s];
      }
    }
    workgroupBarrier();
  }
  if (lane == 0u && n < P.N) {
    var biasv = 0.0;
    if (P.hasBias == 1u) { biasv = ld_bias(P.offBias + n); }
    for (var m = 0u; m < P.M; m = m + 1u) {
      let at = P.offC + m * P.ldc + n;
      var out = P.alpha * part[(col * MM + m) * 32u] + biasv;
      if (P.beta != 0.0) { out = out + P.beta * c[at]; }
      c[at] = out;
    }
  }
}
`;
  return { key: `matmulFewRows:${transA}:${a}:${b}:${bias}`, code, bindings, params: matmulParams };
}

export const matmulFewRowsProgram = cached(buildMatmulFewRowsProgram);
