// WGSL tiled attention backward (kernel `attentionBackward`, same semantics as attention.ts; CPU twin:
// kernels/cpu/attention.ts): the rows one thread reads many times are staged in workgroup memory once per
// workgroup instead of being read from device memory by every thread.
//   dk, dv:  a workgroup of 64 consecutive keys of one (sequence, KV head); for each query head of the GQA group it
//            walks the queries t >= the block's first key in blocks of QB, staging their q, dout, lse and delta rows;
//            thread j accumulates dk_j = scale Σ p (dout·v_j - delta) q and dv_j = Σ p dout (p = exp(scale q·k_j -
//            lse)) over the staged queries t >= j. One kernel for both (s and p computed once).
//   dq:      a workgroup of 64 consecutive queries of one (sequence, head); the keys up to the block's last query in
//            blocks of KB staged (k and v rows); thread t accumulates dq_t = scale Σ_j p (dout_t·v_j - delta_t) k_j.
// Both read `stats` [2, B, H, T]: delta (Σ_d dout·o per query) then lse, one binding instead of two, so dk, dv
// bind 8 storage buffers (q, k, v, keyStart, stats, dout, dk, dv): the spec's default maxStorageBuffersPerShaderStage.
// Block sizes keep the staging within 16 KiB of workgroup memory (the spec's minimum).
import { cached, header, type BindingSpec, type WgslProgram } from './common.ts';

const WG = 64;
const backwardParams = {
  B: 'u32',
  T: 'u32',
  H: 'u32',
  Hkv: 'u32',
  scale: 'f32',
  nBlocks: 'u32',
  groups: 'u32',
} as const;

/** Rows of Dh floats (padded to a multiple of 4) that fit `arrays` staging arrays in 16 KiB, at most 64. */
function rowsFor(Dh: number, arrays: number): number {
  const dhp = Math.ceil(Dh / 4) * 4;
  return Math.max(1, Math.min(WG, Math.floor(16384 / (4 * arrays * dhp + 8))));
}

function shell(bindings: readonly BindingSpec[], Dh: number, shared: string, body: string): string {
  return `${header(backwardParams, bindings)}
const DH = ${Dh}u;
const DH4 = ${Math.ceil(Dh / 4)}u;
const DHP = ${Math.ceil(Dh / 4) * 4}u;
${shared}

@compute @workgroup_size(${WG})
fn main(@builtin(workgroup_id) widv: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lidv: vec3<u32>) {
  let lid = lidv.x;
  // the workgroup's flat index over a grid of at most 65,535 per dimension (grid1d(groups, 1)); uniform exit
  let wid = vec3<u32>(widv.x + widv.y * nwg.x, 0u, 0u);
  if (wid.x >= P.groups) { return; }
${body}
}
`;
}

/** vec4 d4 of a row of `x` (device memory) at element base, zero past Dh. */
const rowLoad = (x: string, base: string, Dh: number) =>
  Dh % 4 === 0
    ? `vec4<f32>(${x}[${base} + d4 * 4u], ${x}[${base} + d4 * 4u + 1u], ${x}[${base} + d4 * 4u + 2u], ${x}[${base} + d4 * 4u + 3u])`
    : `vec4<f32>(${[0, 1, 2, 3].map((c) => `select(0.0, ${x}[min(${base} + d4 * 4u + ${c}u, arrayLength(&${x}) - 1u)], d4 * 4u + ${c}u < DH)`).join(', ')})`;

const shared4 = (x: string, row: string) =>
  `vec4<f32>(${x}[${row} * DHP + d4 * 4u], ${x}[${row} * DHP + d4 * 4u + 1u], ${x}[${row} * DHP + d4 * 4u + 2u], ${x}[${row} * DHP + d4 * 4u + 3u])`;

const storeRow = (
  dst: string,
  base: string,
  src: string,
  scale: string,
) => `  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
    let val = ${src}[d4] * ${scale};
    for (var c = 0u; c < 4u; c = c + 1u) { let d = d4 * 4u + c; if (d < DH) { ${dst}[${base} + d] = val[c]; } }
  }`;

function buildDkDvProgram(Dh: number): WgslProgram {
  const bindings: BindingSpec[] = [
    { name: 'q', elem: 'f32', access: 'read' },
    { name: 'k', elem: 'f32', access: 'read' },
    { name: 'v', elem: 'f32', access: 'read' },
    { name: 'keyStart', elem: 'i32', access: 'read' },
    { name: 'stats', elem: 'f32', access: 'read' },
    { name: 'dout', elem: 'f32', access: 'read' },
    { name: 'dk', elem: 'f32', access: 'read_write' },
    { name: 'dv', elem: 'f32', access: 'read_write' },
  ];
  const QB = rowsFor(Dh, 2);
  const code = shell(
    bindings,
    Dh,
    `const QB = ${QB}u;
var<workgroup> qs: array<f32, ${QB * Math.ceil(Dh / 4) * 4}>;
var<workgroup> dos: array<f32, ${QB * Math.ceil(Dh / 4) * 4}>;
var<workgroup> lses: array<f32, ${QB}>;
var<workgroup> deltas: array<f32, ${QB}>;`,
    `  let kb = wid.x % P.nBlocks;
  let kvh = (wid.x / P.nBlocks) % P.Hkv;
  let b = wid.x / (P.nBlocks * P.Hkv);
  let group = P.H / P.Hkv;
  let j = kb * ${WG}u + lid;
  let live = j < P.T;
  let visible = live && i32(j) >= keyStart[b];
  let kvBase = ((b * P.T + min(j, P.T - 1u)) * P.Hkv + kvh) * DH;
  var kv: array<vec4<f32>, DH4>;
  var vv: array<vec4<f32>, DH4>;
  var accK: array<vec4<f32>, DH4>;
  var accV: array<vec4<f32>, DH4>;
  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
    kv[d4] = ${rowLoad('k', 'kvBase', Dh)};
    vv[d4] = ${rowLoad('v', 'kvBase', Dh)};
    accK[d4] = vec4<f32>(0.0);
    accV[d4] = vec4<f32>(0.0);
  }
  for (var h = kvh * group; h < (kvh + 1u) * group; h = h + 1u) {
    for (var t0 = kb * ${WG}u; t0 < P.T; t0 = t0 + QB) {
      for (var i = lid; i < QB * DHP; i = i + ${WG}u) {
        let t = t0 + i / DHP;
        let d = i % DHP;
        var x = 0.0;
        var y = 0.0;
        if (t < P.T && d < DH) {
          let at = ((b * P.T + t) * P.H + h) * DH + d;
          x = q[at];
          y = dout[at];
        }
        qs[i] = x;
        dos[i] = y;
      }
      for (var i = lid; i < QB; i = i + ${WG}u) {
        let t = t0 + i;
        var l = 0.0;
        var dl = 0.0;
        if (t < P.T) { dl = stats[(b * P.H + h) * P.T + t]; l = stats[P.B * P.H * P.T + (b * P.H + h) * P.T + t]; }
        lses[i] = l;
        deltas[i] = dl;
      }
      workgroupBarrier();
      if (visible) {
        for (var r = 0u; r < QB; r = r + 1u) {
          let t = t0 + r;
          if (t >= P.T) { break; }
          if (t < j) { continue; }
          var s = 0.0;
          var dp = 0.0;
          for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
            s = s + dot(${shared4('qs', 'r')}, kv[d4]);
            dp = dp + dot(${shared4('dos', 'r')}, vv[d4]);
          }
          let p = exp(s * P.scale - lses[r]);
          let ds = p * (dp - deltas[r]);
          for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
            accK[d4] = accK[d4] + ds * ${shared4('qs', 'r')};
            accV[d4] = accV[d4] + p * ${shared4('dos', 'r')};
          }
        }
      }
      workgroupBarrier();
    }
  }
  if (live) {
${storeRow('dk', 'kvBase', 'accK', 'P.scale')}
${storeRow('dv', 'kvBase', 'accV', '1.0')}
  }`,
  );
  return { key: `attentionDkDvTiled:${Dh}`, code, bindings, params: backwardParams };
}

function buildDqProgram(Dh: number): WgslProgram {
  const bindings: BindingSpec[] = [
    { name: 'q', elem: 'f32', access: 'read' },
    { name: 'k', elem: 'f32', access: 'read' },
    { name: 'v', elem: 'f32', access: 'read' },
    { name: 'keyStart', elem: 'i32', access: 'read' },
    { name: 'stats', elem: 'f32', access: 'read' },
    { name: 'dout', elem: 'f32', access: 'read' },
    { name: 'dq', elem: 'f32', access: 'read_write' },
  ];
  const KB = rowsFor(Dh, 2);
  const code = shell(
    bindings,
    Dh,
    `const KB = ${KB}u;
var<workgroup> ks: array<f32, ${KB * Math.ceil(Dh / 4) * 4}>;
var<workgroup> vs: array<f32, ${KB * Math.ceil(Dh / 4) * 4}>;`,
    `  let qb = wid.x % P.nBlocks;
  let h = (wid.x / P.nBlocks) % P.H;
  let b = wid.x / (P.nBlocks * P.H);
  let kvh = h / (P.H / P.Hkv);
  let t = qb * ${WG}u + lid;
  let live = t < P.T;
  let j0 = u32(max(keyStart[b], 0));
  let qBase = ((b * P.T + min(t, P.T - 1u)) * P.H + h) * DH;
  let at = (b * P.H + h) * P.T + min(t, P.T - 1u);
  let dl = stats[at];
  let L = stats[P.B * P.H * P.T + at];
  var qv: array<vec4<f32>, DH4>;
  var dov: array<vec4<f32>, DH4>;
  var acc: array<vec4<f32>, DH4>;
  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
    qv[d4] = ${rowLoad('q', 'qBase', Dh)} * P.scale;
    dov[d4] = ${rowLoad('dout', 'qBase', Dh)};
    acc[d4] = vec4<f32>(0.0);
  }
  // keys up to the block's last query
  let jEnd = min((qb + 1u) * ${WG}u, P.T);
  for (var jb = (j0 / KB) * KB; jb < jEnd; jb = jb + KB) {
    for (var i = lid; i < KB * DHP; i = i + ${WG}u) {
      let j = jb + i / DHP;
      let d = i % DHP;
      var x = 0.0;
      var y = 0.0;
      if (j < P.T && d < DH) {
        let a = ((b * P.T + j) * P.Hkv + kvh) * DH + d;
        x = k[a];
        y = v[a];
      }
      ks[i] = x;
      vs[i] = y;
    }
    workgroupBarrier();
    if (live) {
      for (var r = 0u; r < KB; r = r + 1u) {
        let j = jb + r;
        if (j > t) { break; }
        if (j < j0) { continue; }
        var s = 0.0;
        var dp = 0.0;
        for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
          s = s + dot(qv[d4], ${shared4('ks', 'r')});
          dp = dp + dot(dov[d4], ${shared4('vs', 'r')});
        }
        let ds = exp(s - L) * (dp - dl);
        for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { acc[d4] = acc[d4] + ds * ${shared4('ks', 'r')}; }
      }
    }
    workgroupBarrier();
  }
  if (live) {
${storeRow('dq', 'qBase', 'acc', 'P.scale')}
  }`,
  );
  return { key: `attentionDqTiled:${Dh}`, code, bindings, params: backwardParams };
}

/** Workgroups per (sequence, head) of the tiled backward kernels: blocks of 64 keys or queries. */
export function backwardBlocks(T: number): number {
  return Math.ceil(T / WG);
}

export const attentionDkDvTiledProgram = cached(buildDkDvProgram);
export const attentionDqTiledProgram = cached(buildDqProgram);
