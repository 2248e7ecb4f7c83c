// WGSL attention with the keys split over several threads per query ("flash decoding"), for the decode case:
// with one token per sequence there are only B*H queries, too few threads for a GPU if each walks the whole
// cache alone. Same semantics as `attention` (attention.ts); no barriers, no atomics.
//   partial:  thread (query, split) runs the online softmax over keys [split*KS, (split+1)*KS) of its visible
//             range and writes (m, l, acc[Dh]) (acc not yet divided by l) to part[query, split, :]
//   merge:    thread per query: M = max m_s, L = sum l_s e^(m_s - M), o = sum acc_s e^(m_s - M) / L,
//             lse = M + log L (o = 0, lse = 0 when no split saw a key)
// part: [B*T*H, nSplit, Dh + 2] scratch. The partials also read a KV cache stored in halves (kv 'f16'), summing
// in f32.
import { cached, type BindingSpec, type WgslProgram } from './common.ts';
import { attentionFamilyProgram, onlineSoftmax, store } from './attention.ts';

const splitParams = {
  n: 'u32',
  B: 'u32',
  T: 'u32',
  S: 'u32',
  past: 'u32',
  H: 'u32',
  Hkv: 'u32',
  scale: 'f32',
  nSplit: 'u32',
  keysPerSplit: 'u32',
} as const;

function build(
  key: string,
  bindings: readonly BindingSpec[],
  Dh: number,
  loads: string[],
  body: string,
  wg: number,
): WgslProgram {
  return attentionFamilyProgram(key, splitParams, bindings, Dh, loads, body, wg);
}

function buildAttentionPartialProgram(Dh: number, wg: number, kv: 'f32' | 'f16' = 'f32'): WgslProgram {
  const bindings: BindingSpec[] = [
    { name: 'q', elem: 'f32', access: 'read' },
    { name: 'k', elem: kv, access: 'read' },
    { name: 'v', elem: kv, access: 'read' },
    { name: 'keyStart', elem: 'i32', access: 'read' },
    { name: 'part', elem: 'f32', access: 'read_write' },
  ];
  return build(
    kv === 'f16' ? 'attentionPartialKvF16' : 'attentionPartial',
    bindings,
    Dh,
    ['q', 'k', 'v'],
    `  let split = gid % P.nSplit;
  let qi = gid / P.nSplit;                  // (b*T + t)*H + h
  let h = qi % P.H;
  let t = (qi / P.H) % P.T;
  let b = qi / (P.H * P.T);
  let kvh = h / (P.H / P.Hkv);
  let qBase = qi * DH;
  let lo = max(u32(max(keyStart[b], 0)), split * P.keysPerSplit);
  let hi = min(P.past + t + 1u, (split + 1u) * P.keysPerSplit);
${onlineSoftmax('for (var j = lo; j < hi; j = j + 1u)', 'P.S * b')}
  let at = gid * (DH + 2u);
  part[at] = m;
  part[at + 1u] = l;
  let base = at + 2u;
${store('part', 'acc', '1.0', Dh)}`,
    wg,
  );
}

function buildAttentionMergeProgram(Dh: number, wg: number): WgslProgram {
  const bindings: BindingSpec[] = [
    { name: 'part', elem: 'f32', access: 'read' },
    { name: 'o', elem: 'f32', access: 'read_write' },
    { name: 'lse', elem: 'f32', access: 'read_write' },
  ];
  return build(
    'attentionMerge',
    bindings,
    Dh,
    ['part'],
    `  let h = gid % P.H;
  let t = (gid / P.H) % P.T;
  let b = gid / (P.H * P.T);
  var mMax = -3.0e38;
  for (var s = 0u; s < P.nSplit; s = s + 1u) {
    let at = (gid * P.nSplit + s) * (DH + 2u);
    if (part[at + 1u] > 0.0) { mMax = max(mMax, part[at]); }
  }
  var L = 0.0;
  var acc: array<vec4<f32>, DH4>;
  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { acc[d4] = vec4<f32>(0.0); }
  for (var s = 0u; s < P.nSplit; s = s + 1u) {
    let at = (gid * P.nSplit + s) * (DH + 2u);
    let l = part[at + 1u];
    if (l > 0.0) {
      let w = exp(part[at] - mMax);
      L = L + l * w;
      for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { acc[d4] = acc[d4] + w * part4(at + 2u, d4); }
    }
  }
  let lseAt = (b * P.H + h) * P.T + t;
  let base = gid * DH;
  if (L == 0.0) {
    lse[lseAt] = 0.0;
${store('o', 'acc', '0.0', Dh)}
  } else {
    lse[lseAt] = mMax + log(L);
${store('o', 'acc', '(1.0 / L)', Dh)}
  }`,
    wg,
  );
}

export const attentionPartialProgram = cached(buildAttentionPartialProgram);
export const attentionMergeProgram = cached(buildAttentionMergeProgram);
