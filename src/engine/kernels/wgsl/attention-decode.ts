// WGSL flash-decoding (kernel `attention` with T = 1: one new token per sequence over its KV cache), same semantics
// as attention.ts (CPU twin: kernels/cpu/attention.ts). One workgroup per (sequence b, KV head, key split): the
// G = H/Hkv query heads of the GQA group are handled together, so each key and value row is read from device memory
// once per workgroup instead of once per query head. Keys are walked in blocks of 64 (one per thread):
//   1. thread j scores key j of the block against the group's G queries (staged in workgroup memory): s[g][j]
//   2. thread g < G: block max, the online-softmax rescale alpha = exp(m_old - m_new), p[g][j] = exp(s - m_new),
//      l = alpha l + sum_j p
//   3. thread d: acc[g][d] = alpha[g] acc[g][d] + sum_j p[g][j] v_j[d]  (v rows read coalesced along d)
// Long contexts are split over several workgroups (nSplit > 1): each writes its (m, l, acc) to the partials the
// split-key merge (attention-split.ts attentionMergeProgram) combines; with one split the workgroup writes o and
// lse itself. A query with no visible key gets o = 0, lse = 0.
// kv 'f16': the cache holds halves (packed pairs, Dh even): keys are read a word (two halves) at a time and values
// widened as they are read; every sum is in f32.
import { cached, header, type BindingSpec, type WgslProgram } from './common.ts';

/** Threads per workgroup = keys per block. */
export const DECODE_BLOCK = 64;

/** Bytes of workgroup memory the program takes for G query heads of head dim Dh: queries, block probabilities and
 *  three per-head scalars. Within the spec's 16 KiB up to G·(Dh + 67) <= 4096 (e.g. G 21 at Dh 128). */
export function decodeWorkgroupBytes(Dh: number, G: number): number {
  return 4 * G * (Dh + DECODE_BLOCK + 3);
}

const decodeParams = {
  B: 'u32',
  S: 'u32',
  past: 'u32',
  H: 'u32',
  Hkv: 'u32',
  scale: 'f32',
  nSplit: 'u32',
  keysPerSplit: 'u32',
} as const;

/** G query heads per KV head, head dim Dh; `direct`: one split, write o and lse (else the partials); `kv`: the
 *  cache's element type. */
function buildAttentionDecodeProgram(Dh: number, G: number, direct: boolean, kv: 'f32' | 'f16' = 'f32'): WgslProgram {
  if (kv === 'f16' && Dh % 2 !== 0)
    throw new Error(`attention decode: an f16 KV cache needs an even head dim, got ${Dh}`);
  const bindings: BindingSpec[] = [
    { name: 'q', elem: 'f32', access: 'read' },
    { name: 'k', elem: kv, access: 'read' },
    { name: 'v', elem: kv, access: 'read' },
    { name: 'keyStart', elem: 'i32', access: 'read' },
    ...(direct
      ? ([
          { name: 'o', elem: 'f32', access: 'read_write' },
          { name: 'lse', elem: 'f32', access: 'read_write' },
        ] as BindingSpec[])
      : ([{ name: 'part', elem: 'f32', access: 'read_write' }] as BindingSpec[])),
  ];
  const KB = DECODE_BLOCK;
  const DPT = Math.ceil(Dh / KB); // dimensions per thread in step 3
  const finish = direct
    ? `    let qi = b * P.H + h;
    if (ls[g] == 0.0) {
      lse[qi] = 0.0;
      for (var r = 0u; r < ${DPT}u; r = r + 1u) { let d = lid + r * ${KB}u; if (d < ${Dh}u) { o[qi * ${Dh}u + d] = 0.0; } }
    } else {
      if (lid == 0u) { lse[qi] = ms[g] + log(ls[g]); }
      let inv = 1.0 / ls[g];
      for (var r = 0u; r < ${DPT}u; r = r + 1u) { let d = lid + r * ${KB}u; if (d < ${Dh}u) { o[qi * ${Dh}u + d] = acc[g * ${DPT}u + r] * inv; } }
    }`
    : `    let at = ((b * P.H + h) * P.nSplit + split) * ${Dh + 2}u;
    if (lid == 0u) { part[at] = ms[g]; part[at + 1u] = ls[g]; }
    for (var r = 0u; r < ${DPT}u; r = r + 1u) { let d = lid + r * ${KB}u; if (d < ${Dh}u) { part[at + 2u + d] = acc[g * ${DPT}u + r]; } }`;
  const score =
    kv === 'f16'
      ? `      for (var d = 0u; d < ${Dh}u; d = d + 2u) {
        let kk = unpack2x16float(k[(kRow + d) >> 1u]);
        s = s + qs[g * ${Dh}u + d] * kk.x;
        s = s + qs[g * ${Dh}u + d + 1u] * kk.y;
      }`
      : `      for (var d = 0u; d < ${Dh}u; d = d + 1u) { s = s + qs[g * ${Dh}u + d] * k[kRow + d]; }`;
  const code = `${header(decodeParams, bindings)}

var<workgroup> qs: array<f32, ${G * Dh}>;   // the group's queries, pre-scaled
var<workgroup> ps: array<f32, ${G * KB}>;   // scores, then probabilities, of the block
var<workgroup> ms: array<f32, ${G}>;        // running max per query head
var<workgroup> ls: array<f32, ${G}>;        // running sum per query head
var<workgroup> alphas: array<f32, ${G}>;    // rescale of the block

@compute @workgroup_size(${KB})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lidv: vec3<u32>) {
  let lid = lidv.x;
  let split = wid.x % P.nSplit;
  let kvh = (wid.x / P.nSplit) % P.Hkv;
  let b = wid.x / (P.nSplit * P.Hkv);
  let h0 = kvh * ${G}u;
  for (var i = lid; i < ${G * Dh}u; i = i + ${KB}u) {
    qs[i] = q[(b * P.H + h0) * ${Dh}u + i] * P.scale;
  }
  if (lid < ${G}u) { ms[lid] = -3.0e38; ls[lid] = 0.0; }
  var acc: array<f32, ${G * DPT}>;
  for (var i = 0u; i < ${G * DPT}u; i = i + 1u) { acc[i] = 0.0; }
  let lo = max(u32(max(keyStart[b], 0)), split * P.keysPerSplit);
  let hi = min(P.past + 1u, (split + 1u) * P.keysPerSplit);
  workgroupBarrier();
  for (var j0 = lo; j0 < hi; j0 = j0 + ${KB}u) {
    let j = j0 + lid;
    let live = j < hi;
    let kRow = ((b * P.S + min(j, hi - 1u)) * P.Hkv + kvh) * ${Dh}u;
    for (var g = 0u; g < ${G}u; g = g + 1u) {
      var s = 0.0;
${score}
      ps[g * ${KB}u + lid] = select(-3.0e38, s, live);
    }
    workgroupBarrier();
    if (lid < ${G}u) {
      let g = lid;
      var mx = ms[g];
      for (var t = 0u; t < ${KB}u; t = t + 1u) { if (j0 + t < hi) { mx = max(mx, ps[g * ${KB}u + t]); } }
      let alpha = exp(ms[g] - mx);
      var sum = 0.0;
      for (var t = 0u; t < ${KB}u; t = t + 1u) {
        var p = 0.0;
        if (j0 + t < hi) { p = exp(ps[g * ${KB}u + t] - mx); }
        ps[g * ${KB}u + t] = p;
        sum = sum + p;
      }
      ls[g] = ls[g] * alpha + sum;
      ms[g] = mx;
      alphas[g] = alpha;
    }
    workgroupBarrier();
    let count = min(${KB}u, hi - j0);
    for (var r = 0u; r < ${DPT}u; r = r + 1u) {
      let d = lid + r * ${KB}u;
      if (d < ${Dh}u) {
        for (var g = 0u; g < ${G}u; g = g + 1u) { acc[g * ${DPT}u + r] = acc[g * ${DPT}u + r] * alphas[g]; }
        for (var t = 0u; t < count; t = t + 1u) {
          let vv = ld_v(((b * P.S + j0 + t) * P.Hkv + kvh) * ${Dh}u + d);
          for (var g = 0u; g < ${G}u; g = g + 1u) { acc[g * ${DPT}u + r] = acc[g * ${DPT}u + r] + ps[g * ${KB}u + t] * vv; }
        }
      }
    }
    workgroupBarrier();
  }
  for (var g = 0u; g < ${G}u; g = g + 1u) {
    let h = h0 + g;
${finish}
  }
}
`;
  return {
    key: `attentionDecode:${Dh}:${G}:${direct ? 'direct' : 'split'}${kv === 'f16' ? ':kvF16' : ''}`,
    code,
    bindings,
    params: decodeParams,
  };
}

export const attentionDecodeProgram = cached(buildAttentionDecodeProgram);
