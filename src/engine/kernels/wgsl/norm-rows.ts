// WGSL RMSNorm backward with workgroup reductions (kernel `rmsnormBackward`, same semantics as norm.ts's
// thread-per-row kernels; CPU twin: kernels/cpu/norm.ts), for adapters where a thread walking a whole row of D
// features reads device memory uncoalesced and leaves most of the GPU idle. The forward's row-per-workgroup kernel
// is norm.ts's rmsnormRows. No subgroups: tree reductions in workgroup memory.
//   rmsnormDxRows: one workgroup of 64 per row r; the lanes share Σ_d dy·w·x (strided partials, a tree over 64),
//                  then write dx[r,d] (+)= rstd·dy·w - rstd³/D · x · Σ, consecutive lanes on consecutive d.
//   rmsnormDwCols: one workgroup of 256 per 64 features: 4 row lanes per feature each sum dy·x·rstd over every 4th
//                  row (64 consecutive features per row read side by side), a tree over the 4, dw[d] += the sum.
// Shapes: x, dy, dx [R,D]; w, dw [D]; rstd [R].
import { cached, header, type ElemType, type WgslProgram } from './common.ts';
import { DW_BINDINGS, DW_PARAMS, DX_PARAMS, dxBindings } from './norm.ts';

/** Features per workgroup of rmsnormDwCols (its grid: ceil(D / 64) workgroups). */
export const DW_COLS = 64;
const DW_LANES = 4;

function buildRmsnormDxRowsProgram(w: ElemType): WgslProgram {
  const params = DX_PARAMS;
  const bindings = dxBindings(w);
  const code = `${header(params, bindings)}

var<workgroup> part: array<f32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let r = wid.x + wid.y * nwg.x;
  let lane = lid.x;
  let rr = min(r, P.R - 1u);
  let row = rr * P.D;
  var acc = 0.0;
  for (var d = lane; d < P.D; d = d + 64u) { acc = acc + dy[row + d] * ld_w(d) * x[row + d]; }
  part[lane] = acc;
  workgroupBarrier();
  for (var s = 32u; s > 0u; s = s >> 1u) {
    if (lane < s) { part[lane] = part[lane] + part[lane + s]; }
    workgroupBarrier();
  }
  if (r >= P.R) { return; }
  let sc = rstd[rr];
  let c = sc * sc * sc * part[0] / f32(P.D);
  for (var d = lane; d < P.D; d = d + 64u) {
    let g = sc * dy[row + d] * ld_w(d) - c * x[row + d];
    if (P.accumulate == 1u) { dx[row + d] = dx[row + d] + g; } else { dx[row + d] = g; }
  }
}
`;
  return { key: `rmsnormDxRows:${w}`, code, bindings, params };
}

function buildRmsnormDwColsProgram(): WgslProgram {
  const params = DW_PARAMS;
  const bindings = DW_BINDINGS;
  const code = `${header(params, bindings)}

var<workgroup> part: array<f32, ${DW_COLS * DW_LANES}>;   // [lanes, features]

@compute @workgroup_size(${DW_COLS * DW_LANES})
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let f = lid.x % ${DW_COLS}u;
  let lane = lid.x / ${DW_COLS}u;
  let d = wid.x * ${DW_COLS}u + f;
  var acc = 0.0;
  if (d < P.D) {
    for (var r = lane; r < P.R; r = r + ${DW_LANES}u) { acc = acc + dy[r * P.D + d] * x[r * P.D + d] * rstd[r]; }
  }
  part[lid.x] = acc;
  workgroupBarrier();
  for (var s = ${DW_LANES / 2}u; s > 0u; s = s >> 1u) {
    if (lane < s) { part[lid.x] = part[lid.x] + part[lid.x + s * ${DW_COLS}u]; }
    workgroupBarrier();
  }
  if (lane == 0u && d < P.D) { dw[d] = dw[d] + part[f]; }
}
`;
  return { key: 'rmsnormDwCols', code, bindings, params };
}

export const rmsnormDxRowsProgram = cached(buildRmsnormDxRowsProgram);
export const rmsnormDwColsProgram = cached(buildRmsnormDwColsProgram);
