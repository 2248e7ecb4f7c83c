// WGSL RMSNorm forward and backward. Rows are independent, so one thread walks one row of D features (no
// workgroup reduction, no barriers); the weight gradient is a column sum, one thread per feature. Hardware adapters
// run the forward's row-per-workgroup variant (rmsnormRows): 64 threads share a row's Σ x² through a
// workgroup-memory reduction and write its D outputs side by side (the backward's: norm-rows.ts).
//   rmsnorm:          rstd[r] = 1/sqrt(mean_d x[r,d]^2 + eps);  y[r,d] = x[r,d] * rstd[r] * w[d]
//   rmsnormDx:        g = dy * w;  dx[r,d] (+)= rstd*g[d] - rstd^3/D * x[r,d] * sum_e g[e] x[r,e]
//   rmsnormDw:        dw[d] += sum_r dy[r,d] * x[r,d] * rstd[r]
// Shapes: x, y, dy, dx [R,D]; w, dw [D]; rstd [R].
import { cached, entry1d, header, type ElemType, type WgslProgram } from './common.ts';

/** The forward's interface, the same for the thread-per-row and the workgroup-per-row kernels. */
const FORWARD_PARAMS = { R: 'u32', D: 'u32', eps: 'f32' } as const;
const forwardBindings = (w: ElemType) =>
  [
    { name: 'x', elem: 'f32', access: 'read' },
    { name: 'w', elem: w, access: 'read' },
    { name: 'y', elem: 'f32', access: 'read_write' },
    { name: 'rstd', elem: 'f32', access: 'read_write' },
  ] as const;

/** The backward's interfaces, the same for the thread-per-row kernels here and the workgroup ones of norm-rows.ts. */
export const DX_PARAMS = { R: 'u32', D: 'u32', accumulate: 'u32' } as const;
export const dxBindings = (w: ElemType) =>
  [
    { name: 'x', elem: 'f32', access: 'read' },
    { name: 'w', elem: w, access: 'read' },
    { name: 'rstd', elem: 'f32', access: 'read' },
    { name: 'dy', elem: 'f32', access: 'read' },
    { name: 'dx', elem: 'f32', access: 'read_write' },
  ] as const;
export const DW_PARAMS = { R: 'u32', D: 'u32' } as const;
export const DW_BINDINGS = [
  { name: 'x', elem: 'f32', access: 'read' },
  { name: 'rstd', elem: 'f32', access: 'read' },
  { name: 'dy', elem: 'f32', access: 'read' },
  { name: 'dw', elem: 'f32', access: 'read_write' },
] as const;

function buildRmsnormProgram(w: ElemType, wg: number): WgslProgram {
  const params = FORWARD_PARAMS;
  const bindings = forwardBindings(w);
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.R) { return; }
  let row = gid * P.D;
  var ss = 0.0;
  for (var d = 0u; d < P.D; d = d + 1u) { let v = x[row + d]; ss = ss + v * v; }
  let s = inverseSqrt(ss / f32(P.D) + P.eps);
  rstd[gid] = s;
  for (var d = 0u; d < P.D; d = d + 1u) { y[row + d] = x[row + d] * s * ld_w(d); }
}
`;
  return { key: `rmsnorm:${w}:wg${wg}`, code, bindings, params, wg };
}

function buildRmsnormDxProgram(w: ElemType, wg: number): WgslProgram {
  const params = DX_PARAMS;
  const bindings = dxBindings(w);
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.R) { return; }
  let row = gid * P.D;
  let s = rstd[gid];
  var dot = 0.0;
  for (var d = 0u; d < P.D; d = d + 1u) { dot = dot + dy[row + d] * ld_w(d) * x[row + d]; }
  let c = s * s * s * dot / f32(P.D);
  for (var d = 0u; d < P.D; d = d + 1u) {
    let g = s * dy[row + d] * ld_w(d) - c * x[row + d];
    if (P.accumulate == 1u) { dx[row + d] = dx[row + d] + g; } else { dx[row + d] = g; }
  }
}
`;
  return { key: `rmsnormDx:${w}:wg${wg}`, code, bindings, params, wg };
}

function buildRmsnormDwProgram(wg: number): WgslProgram {
  const params = DW_PARAMS;
  const bindings = DW_BINDINGS;
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.D) { return; }
  var acc = 0.0;
  for (var r = 0u; r < P.R; r = r + 1u) { acc = acc + dy[r * P.D + gid] * x[r * P.D + gid] * rstd[r]; }
  dw[gid] = dw[gid] + acc;
}
`;
  return { key: `rmsnormDw:wg${wg}`, code, bindings, params, wg };
}

function buildRmsnormRowsProgram(w: ElemType): WgslProgram {
  const params = FORWARD_PARAMS;
  const bindings = forwardBindings(w);
  const code = `${header(params, bindings)}

var<workgroup> part: array<f32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let r = wid.x + wid.y * nwg.x;
  let lane = lid.x;
  let row = min(r, P.R - 1u) * P.D;
  var ss = 0.0;
  for (var d = lane; d < P.D; d = d + 64u) { let v = x[row + d]; ss = ss + v * v; }
  part[lane] = ss;
  workgroupBarrier();
  for (var s = 32u; s > 0u; s = s >> 1u) {
    if (lane < s) { part[lane] = part[lane] + part[lane + s]; }
    workgroupBarrier();
  }
  if (r >= P.R) { return; }
  let sc = inverseSqrt(part[0] / f32(P.D) + P.eps);
  if (lane == 0u) { rstd[r] = sc; }
  for (var d = lane; d < P.D; d = d + 64u) { y[row + d] = x[row + d] * sc * ld_w(d); }
}
`;
  return { key: `rmsnormRows:${w}`, code, bindings, params };
}

export const rmsnormRowsProgram = cached(buildRmsnormRowsProgram);
export const rmsnormProgram = cached(buildRmsnormProgram);

export const rmsnormDxProgram = cached(buildRmsnormDxProgram);

export const rmsnormDwProgram = cached(buildRmsnormDwProgram);
