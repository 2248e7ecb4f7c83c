// WGSL causal grouped-query attention over a KV cache, and its backward (flash-attention style recompute from
// the saved log-sum-exp; no [T,S] score matrix is stored). One thread per query (or per key for dk/dv) keeps
// its Dh-vector in registers; Dh is a template parameter. No workgroup memory, no barriers, no atomics.
// Shapes: q, o, dout, dq [B,T,H,Dh]; k, v, dk, dv [B,S,Hkv,Dh]; keyStart [B] i32; lse, delta [B,H,T].
// Query t of sequence b sits at cache row past+t and sees keys j with keyStart[b] <= j <= past+t; head h reads
// kv head h / (H/Hkv). A query with no visible key gets o = 0, lse = 0 (as the CPU reference).
// The forward also reads a KV cache stored in halves (k, v f16: packed pairs widened to f32, sums in f32); the
// backward reads a training pass's own f32 keys and values only.
//   forward:  s_j = scale q.k_j;  lse = log sum_j exp(s_j);  o = sum_j exp(s_j - lse) v_j    (online softmax)
//   delta:    delta = dout . o
//   dq:       dq = scale sum_j p_j (dout.v_j - delta) k_j,           p_j = exp(s_j - lse)
//   dk:       dk_j = scale sum_{h in group, past+t >= j} p (dout.v_j - delta) q     (zero for j < keyStart)
//   dv:       dv_j = sum_{h in group, past+t >= j} p dout
import { cached, entry1d, header, type BindingSpec, type ParamSpec, type WgslProgram } from './common.ts';

const attentionParams = {
  n: 'u32',
  B: 'u32',
  T: 'u32',
  S: 'u32',
  past: 'u32',
  H: 'u32',
  Hkv: 'u32',
  scale: 'f32',
} as const;

/** `fn X4(base, d4) -> vec4<f32>`: elements base + 4*d4 .. +3 of binding X, zero past Dh. An f16 binding (a KV
 *  cache in halves: packed pairs) is widened to f32; with Dh a multiple of 4 (so `base` is too) as two words. */
function loaders(names: string[], Dh: number, bindings: readonly BindingSpec[]): string {
  return names
    .map((x) => {
      const half = bindings.find((b) => b.name === x)?.elem === 'f16';
      if (half && Dh % 4 === 0) {
        const w = `(base >> 1u) + d4 * 2u`;
        return `fn ${x}4(base: u32, d4: u32) -> vec4<f32> { return vec4<f32>(unpack2x16float(${x}[${w}]), unpack2x16float(${x}[${w} + 1u])); }`;
      }
      const parts = [0, 1, 2, 3].map((c) =>
        half
          ? `select(0.0, ld_${x}(min(base + d4 * 4u + ${c}u, 2u * arrayLength(&${x}) - 1u)), d4 * 4u + ${c}u < ${Dh}u)`
          : Dh % 4 === 0
            ? `${x}[base + d4 * 4u + ${c}u]`
            : `select(0.0, ${x}[min(base + d4 * 4u + ${c}u, arrayLength(&${x}) - 1u)], d4 * 4u + ${c}u < ${Dh}u)`,
      );
      return `fn ${x}4(base: u32, d4: u32) -> vec4<f32> { return vec4<f32>(${parts.join(', ')}); }`;
    })
    .join('\n');
}

/** WGSL statements storing vec4 array `src` (scaled by `scale`) to binding `dst` at `base`, skipping d >= Dh. */
export function store(dst: string, src: string, scale: string, Dh: number): string {
  return `  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
    let val = ${src}[d4] * ${scale};
    for (var c = 0u; c < 4u; c = c + 1u) {
      let d = d4 * 4u + c;
      if (d < ${Dh}u) { ${dst}[base + d] = val[c]; }
    }
  }`;
}

/** One attention-family program: the shared header, Dh constants and loaders around a 1-D body (one thread per `gid < P.n`). */
export function attentionFamilyProgram(
  key: string,
  params: ParamSpec,
  bindings: readonly BindingSpec[],
  Dh: number,
  loads: string[],
  body: string,
  wg: number,
): WgslProgram {
  const code = `${header(params, bindings)}
const DH4 = ${Math.ceil(Dh / 4)}u;
const DH = ${Dh}u;
${loaders(loads, Dh, bindings)}

${entry1d(wg)}
  if (gid >= P.n) { return; }
${body}
}
`;
  return { key: `${key}:${Dh}:wg${wg}`, code, bindings, params, wg };
}

function build(
  key: string,
  bindings: readonly BindingSpec[],
  Dh: number,
  loads: string[],
  body: string,
  wg: number,
): WgslProgram {
  return attentionFamilyProgram(key, attentionParams, bindings, Dh, loads, body, wg);
}

/** Thread = (b, t, h), gid = (b*T + t)*H + h. */
const queryIndex = `  let h = gid % P.H;
  let t = (gid / P.H) % P.T;
  let b = gid / (P.H * P.T);
  let kvh = h / (P.H / P.Hkv);
  let qBase = gid * DH;
  let lseAt = (b * P.H + h) * P.T + t;
  let j0 = u32(max(keyStart[b], 0));
  let jEnd = P.past + t;
  let kvRow = P.S * b;`;

/**
 * One query row (qBase) against the keys `for (var j = ...)` walks, in one pass with a running max: leaves the max
 * score m, the sum of exp(s - m) in l, and acc = sum_j exp(s_j - m) v_j. `kvRow` is the sequence's first cache row.
 * Shared by the whole-row kernel here and the split-key partials (attention-split.ts).
 */
export function onlineSoftmax(loop: string, kvRow: string): string {
  return `  var qv: array<vec4<f32>, DH4>;
  var acc: array<vec4<f32>, DH4>;
  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { qv[d4] = q4(qBase, d4) * P.scale; acc[d4] = vec4<f32>(0.0); }
  var m = -3.0e38;
  var l = 0.0;
  ${loop} {
    let kvBase = ((${kvRow} + j) * P.Hkv + kvh) * DH;
    var s = 0.0;
    for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { s = s + dot(qv[d4], k4(kvBase, d4)); }
    let mNew = max(m, s);
    let corr = exp(m - mNew);
    let p = exp(s - mNew);
    l = l * corr + p;
    for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { acc[d4] = acc[d4] * corr + p * v4(kvBase, d4); }
    m = mNew;
  }`;
}

/** The forward; `kv` 'f16': k and v are a KV cache stored in halves (read widened, accumulated in f32). */
function buildAttentionProgram(Dh: number, wg: number, kv: 'f32' | 'f16' = 'f32'): WgslProgram {
  const bindings: BindingSpec[] = [
    { name: 'q', elem: 'f32', access: 'read' },
    { name: 'k', elem: kv, access: 'read' },
    { name: 'v', elem: kv, access: 'read' },
    { name: 'keyStart', elem: 'i32', access: 'read' },
    { name: 'o', elem: 'f32', access: 'read_write' },
    { name: 'lse', elem: 'f32', access: 'read_write' },
  ];
  return build(
    kv === 'f16' ? 'attentionKvF16' : 'attention',
    bindings,
    Dh,
    ['q', 'k', 'v'],
    `${queryIndex}
${onlineSoftmax('for (var j = j0; j <= jEnd; j = j + 1u)', 'kvRow')}
  let base = qBase;
  if (l == 0.0) {
    lse[lseAt] = 0.0;
${store('o', 'acc', '0.0', Dh)}
  } else {
    lse[lseAt] = m + log(l);
${store('o', 'acc', '(1.0 / l)', Dh)}
  }`,
    wg,
  );
}

/** delta[b,h,t] = dout . o (one thread per query). */
function buildAttentionDeltaProgram(Dh: number, wg: number): WgslProgram {
  const bindings: BindingSpec[] = [
    { name: 'o', elem: 'f32', access: 'read' },
    { name: 'dout', elem: 'f32', access: 'read' },
    { name: 'delta', elem: 'f32', access: 'read_write' },
  ];
  return build(
    'attentionDelta',
    bindings,
    Dh,
    ['o', 'dout'],
    `  let h = gid % P.H;
  let t = (gid / P.H) % P.T;
  let b = gid / (P.H * P.T);
  var s = 0.0;
  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { s = s + dot(o4(gid * DH, d4), dout4(gid * DH, d4)); }
  delta[(b * P.H + h) * P.T + t] = s;`,
    wg,
  );
}

function buildAttentionDqProgram(Dh: number, wg: number): WgslProgram {
  const bindings: BindingSpec[] = [
    { name: 'q', elem: 'f32', access: 'read' },
    { name: 'k', elem: 'f32', access: 'read' },
    { name: 'v', elem: 'f32', access: 'read' },
    { name: 'keyStart', elem: 'i32', access: 'read' },
    { name: 'lse', elem: 'f32', access: 'read' },
    { name: 'dout', elem: 'f32', access: 'read' },
    { name: 'delta', elem: 'f32', access: 'read' },
    { name: 'dq', elem: 'f32', access: 'read_write' },
  ];
  return build(
    'attentionDq',
    bindings,
    Dh,
    ['q', 'k', 'v', 'dout'],
    `${queryIndex}
  var qv: array<vec4<f32>, DH4>;
  var dov: array<vec4<f32>, DH4>;
  var acc: array<vec4<f32>, DH4>;
  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
    qv[d4] = q4(qBase, d4) * P.scale; dov[d4] = dout4(qBase, d4); acc[d4] = vec4<f32>(0.0);
  }
  let L = lse[lseAt];
  let dl = delta[lseAt];
  for (var j = j0; j <= jEnd; j = j + 1u) {
    let kvBase = ((kvRow + j) * P.Hkv + kvh) * DH;
    var s = 0.0;
    var dp = 0.0;
    for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
      s = s + dot(qv[d4], k4(kvBase, d4));
      dp = dp + dot(dov[d4], v4(kvBase, d4));
    }
    let ds = exp(s - L) * (dp - dl);
    for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { acc[d4] = acc[d4] + ds * k4(kvBase, d4); }
  }
  let base = qBase;
${store('dq', 'acc', 'P.scale', Dh)}`,
    wg,
  );
}

/** Thread = (b, j, kvh), gid = (b*S + j)*Hkv + kvh; loops over the group's heads and the queries past+t >= j. */
const keyIndex = `  let kvh = gid % P.Hkv;
  let j = (gid / P.Hkv) % P.S;
  let b = gid / (P.Hkv * P.S);
  let group = P.H / P.Hkv;
  let kvBase = gid * DH;
  let visible = i32(j) >= keyStart[b];
  let t0 = select(0u, j - P.past, j > P.past);`;

function buildAttentionDkProgram(Dh: number, wg: number): WgslProgram {
  const bindings: BindingSpec[] = [
    { name: 'q', elem: 'f32', access: 'read' },
    { name: 'k', elem: 'f32', access: 'read' },
    { name: 'v', elem: 'f32', access: 'read' },
    { name: 'keyStart', elem: 'i32', access: 'read' },
    { name: 'lse', elem: 'f32', access: 'read' },
    { name: 'dout', elem: 'f32', access: 'read' },
    { name: 'delta', elem: 'f32', access: 'read' },
    { name: 'dk', elem: 'f32', access: 'read_write' },
  ];
  return build(
    'attentionDk',
    bindings,
    Dh,
    ['q', 'k', 'v', 'dout'],
    `${keyIndex}
  var kv: array<vec4<f32>, DH4>;
  var vv: array<vec4<f32>, DH4>;
  var acc: array<vec4<f32>, DH4>;
  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { kv[d4] = k4(kvBase, d4); vv[d4] = v4(kvBase, d4); acc[d4] = vec4<f32>(0.0); }
  if (visible) {
    for (var h = kvh * group; h < (kvh + 1u) * group; h = h + 1u) {
      for (var t = t0; t < P.T; t = t + 1u) {
        let qBase = ((b * P.T + t) * P.H + h) * DH;
        let at = (b * P.H + h) * P.T + t;
        var s = 0.0;
        var dp = 0.0;
        for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
          s = s + dot(q4(qBase, d4), kv[d4]);
          dp = dp + dot(dout4(qBase, d4), vv[d4]);
        }
        let ds = exp(s * P.scale - lse[at]) * (dp - delta[at]);
        for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { acc[d4] = acc[d4] + ds * q4(qBase, d4); }
      }
    }
  }
  let base = kvBase;
${store('dk', 'acc', 'P.scale', Dh)}`,
    wg,
  );
}

function buildAttentionDvProgram(Dh: number, wg: number): WgslProgram {
  const bindings: BindingSpec[] = [
    { name: 'q', elem: 'f32', access: 'read' },
    { name: 'k', elem: 'f32', access: 'read' },
    { name: 'keyStart', elem: 'i32', access: 'read' },
    { name: 'lse', elem: 'f32', access: 'read' },
    { name: 'dout', elem: 'f32', access: 'read' },
    { name: 'dv', elem: 'f32', access: 'read_write' },
  ];
  return build(
    'attentionDv',
    bindings,
    Dh,
    ['q', 'k', 'dout'],
    `${keyIndex}
  var kv: array<vec4<f32>, DH4>;
  var acc: array<vec4<f32>, DH4>;
  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { kv[d4] = k4(kvBase, d4); acc[d4] = vec4<f32>(0.0); }
  if (visible) {
    for (var h = kvh * group; h < (kvh + 1u) * group; h = h + 1u) {
      for (var t = t0; t < P.T; t = t + 1u) {
        let qBase = ((b * P.T + t) * P.H + h) * DH;
        var s = 0.0;
        for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { s = s + dot(q4(qBase, d4), kv[d4]); }
        let p = exp(s * P.scale - lse[(b * P.H + h) * P.T + t]);
        for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { acc[d4] = acc[d4] + p * dout4(qBase, d4); }
      }
    }
  }
  let base = kvBase;
${store('dv', 'acc', '1.0', Dh)}`,
    wg,
  );
}

export const attentionProgram = cached(buildAttentionProgram);

export const attentionDeltaProgram = cached(buildAttentionDeltaProgram);

export const attentionDqProgram = cached(buildAttentionDqProgram);

export const attentionDkProgram = cached(buildAttentionDkProgram);

export const attentionDvProgram = cached(buildAttentionDvProgram);
