// WGSL of the catalog's `adamwPrepare` and `adamwApply`: the optimiser step decided and applied on the device, so
// the host reads nothing back per step (optim/adamw.ts). adamwPrepare (one thread) turns Σ g² (normSq[0], written
// by sumSquares earlier in the same submit) into the step's record, the clip factor and the applied flag: a
// non-finite Σ g² (bits of an Inf or NaN exponent: a bit test, which no fast-math rewriting can drop) marks the
// step skipped; otherwise it takes lr, bc1, bc2 from the host-written table entry of the device's step count and
// counts the step. adamwApply updates a flat run of parameters with them, as `adamw` does (elementwise.ts).
// The state layout is kernels/cpu/adamw.ts ADAMW_STATE (the CPU twins).
import { ADAMW_STATE } from '../cpu/adamw.ts';
import { cached, entry1d, header, type ParamSpec, type WgslProgram } from './common.ts';

export const adamwPrepareParams = {
  known: 'u32',
  record: 'u32',
  capacity: 'u32',
  clip: 'f32',
} as const satisfies ParamSpec;

export const adamwApplyParams = {
  n: 'u32',
  beta1: 'f32',
  beta2: 'f32',
  eps: 'f32',
  weightDecay: 'f32',
} as const satisfies ParamSpec;

const { STEP, APPLY, RECORDS } = ADAMW_STATE;

function buildAdamwPrepareProgram(): WgslProgram {
  const bindings = [
    { name: 'normSq', elem: 'f32', access: 'read' },
    { name: 'state', elem: 'f32', access: 'read_write' },
  ] as const;
  const code = `${header(adamwPrepareParams, bindings)}

@compute @workgroup_size(1)
fn main() {
  let sq = normSq[0];
  let rec = ${RECORDS}u + 2u * P.record;
  state[rec] = sq;
  if ((bitcast<u32>(sq) & 0x7f800000u) == 0x7f800000u) {
    state[rec + 1u] = 0.0;
    state[${APPLY}u] = 0.0;
    return;
  }
  state[rec + 1u] = 1.0;
  let norm = sqrt(sq);
  var scale = 1.0;
  if (P.clip > 0.0 && norm > P.clip) { scale = P.clip / (norm + 1e-6); }
  let entry = ${RECORDS}u + 2u * P.capacity + 3u * (u32(state[${STEP}u]) - P.known);
  state[${APPLY}u] = 1.0;
  state[${APPLY + 1}u] = scale;
  state[${APPLY + 2}u] = state[entry];
  state[${APPLY + 3}u] = state[entry + 1u];
  state[${APPLY + 4}u] = state[entry + 2u];
  state[${STEP}u] = state[${STEP}u] + 1.0;
}
`;
  return { key: 'adamwPrepare', code, bindings, params: adamwPrepareParams };
}

function buildAdamwApplyProgram(wg: number): WgslProgram {
  const bindings = [
    { name: 'p', elem: 'f32', access: 'read_write' },
    { name: 'g', elem: 'f32', access: 'read' },
    { name: 'm', elem: 'f32', access: 'read_write' },
    { name: 'v', elem: 'f32', access: 'read_write' },
    { name: 'state', elem: 'f32', access: 'read' },
  ] as const;
  const code = `${header(adamwApplyParams, bindings)}

${entry1d(wg)}
  if (gid >= P.n || state[${APPLY}u] == 0.0) { return; }
  let scale = state[${APPLY + 1}u];
  let lr = state[${APPLY + 2}u];
  let bc1 = state[${APPLY + 3}u];
  let bc2 = state[${APPLY + 4}u];
  let gi = g[gid] * scale;
  let mi = P.beta1 * m[gid] + (1.0 - P.beta1) * gi;
  let vi = P.beta2 * v[gid] + (1.0 - P.beta2) * gi * gi;
  m[gid] = mi;
  v[gid] = vi;
  let pi = p[gid];
  p[gid] = pi - lr * (mi / bc1 / (sqrt(vi / bc2) + P.eps) + P.weightDecay * pi);
}
`;
  return { key: `adamwApply:wg${wg}`, code, bindings, params: adamwApplyParams, wg };
}

export const adamwPrepareProgram = cached(buildAdamwPrepareProgram);
export const adamwApplyProgram = cached(buildAdamwApplyProgram);
