// WGSL flash-attention forward for prefill and scoring (kernel `attention` with many queries; same semantics and
// outputs as attention.ts, CPU twin: kernels/cpu/attention.ts): the key and value rows every query of a block
// reads are staged in workgroup memory once per workgroup instead of being read from device memory by every thread.
// One workgroup per (sequence b, head h, block of 64 queries); thread i owns query t = block·64 + i (its scaled q row,
// running max m, sum l and output accumulator in registers). The visible keys of the block are walked in tiles of
// KB rows (k and v staged as vec4, widened from halves for an f16 KV cache); each thread folds the tile's keys it
// sees into its online softmax. Shapes: q, o [B,T,H,Dh]; k, v [B,S,Hkv,Dh]; keyStart [B]; lse [B,H,T].
//   s_j = scale q·k_j;  m' = max(m, s_j);  l = l·exp(m - m') + exp(s_j - m');  acc = acc·exp(m - m') + exp(s_j - m') v_j
//   o = acc / l;  lse = m + log l   (a query with no visible key: o = 0, lse = 0)
// Workgroup memory: 2·KB·ceil(Dh/4)·16 bytes <= 16 KiB (the spec's default limit); 64 invocations; 6 storage buffers.
import { cached, header, type BindingSpec, type WgslProgram } from './common.ts';

/** Queries per workgroup (= threads). */
export const FLASH_QUERIES = 64;

const flashParams = {
  B: 'u32',
  T: 'u32',
  S: 'u32',
  past: 'u32',
  H: 'u32',
  Hkv: 'u32',
  scale: 'f32',
  nBlocks: 'u32',
} as const;

/** Keys per staged tile: k and v tiles of ceil(Dh/4) vec4 rows within 16 KiB, at most 64. */
export function flashKeyTile(Dh: number): number {
  return Math.max(1, Math.min(64, Math.floor(16384 / (2 * 16 * Math.ceil(Dh / 4)))));
}

/** vec4 d4 of the row of binding `x` starting at element `base` (f32 or halves), zero past Dh. */
function tileLoad(x: string, half: boolean, Dh: number): string {
  if (half && Dh % 4 === 0) {
    return `vec4<f32>(unpack2x16float(${x}[(base >> 1u) + d4 * 2u]), unpack2x16float(${x}[(base >> 1u) + d4 * 2u + 1u]))`;
  }
  if (!half && Dh % 4 === 0) {
    return `vec4<f32>(${x}[base + d4 * 4u], ${x}[base + d4 * 4u + 1u], ${x}[base + d4 * 4u + 2u], ${x}[base + d4 * 4u + 3u])`;
  }
  const parts = [0, 1, 2, 3].map(
    (c) => `select(0.0, ld_${x}(base + min(d4 * 4u + ${c}u, DH - 1u)), d4 * 4u + ${c}u < DH)`,
  );
  return `vec4<f32>(${parts.join(', ')})`;
}

function buildAttentionFlashProgram(Dh: number, kv: 'f32' | 'f16' = 'f32'): WgslProgram {
  if (kv === 'f16' && Dh % 2 !== 0)
    throw new Error(`flash attention: an f16 KV cache needs an even head dim, got ${Dh}`);
  const bindings: BindingSpec[] = [
    { name: 'q', elem: 'f32', access: 'read' },
    { name: 'k', elem: kv, access: 'read' },
    { name: 'v', elem: kv, access: 'read' },
    { name: 'keyStart', elem: 'i32', access: 'read' },
    { name: 'o', elem: 'f32', access: 'read_write' },
    { name: 'lse', elem: 'f32', access: 'read_write' },
  ];
  const DH4 = Math.ceil(Dh / 4);
  const KB = flashKeyTile(Dh);
  const QB = FLASH_QUERIES;
  const half = kv === 'f16';
  const code = `${header(flashParams, bindings)}
const DH = ${Dh}u;
const DH4 = ${DH4}u;
const KB = ${KB}u;

var<workgroup> ks: array<vec4<f32>, ${KB * DH4}>;   // [KB, DH4] key rows of the tile
var<workgroup> vs: array<vec4<f32>, ${KB * DH4}>;   // [KB, DH4] value rows of the tile

@compute @workgroup_size(${QB})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lidv: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let lid = lidv.x;
  let g = wid.x + wid.y * nwg.x;
  if (g >= P.B * P.H * P.nBlocks) { return; }
  let qb = g % P.nBlocks;
  let h = (g / P.nBlocks) % P.H;
  let b = g / (P.nBlocks * P.H);
  let kvh = h / (P.H / P.Hkv);
  let t = qb * ${QB}u + lid;
  let live = t < P.T;
  let qBase = ((b * P.T + min(t, P.T - 1u)) * P.H + h) * DH;
  var qv: array<vec4<f32>, DH4>;
  var acc: array<vec4<f32>, DH4>;
  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
    let base = qBase;
    qv[d4] = ${tileLoad('q', false, Dh)} * P.scale;
    acc[d4] = vec4<f32>(0.0);
  }
  var m = -3.0e38;
  var l = 0.0;
  let j0 = u32(max(keyStart[b], 0));
  let jLast = P.past + t;                                 // this query's last visible key
  let jEnd = P.past + min((qb + 1u) * ${QB}u, P.T);       // one past the block's last visible key
  for (var jb = j0; jb < jEnd; jb = jb + KB) {
    for (var i = lid; i < KB * DH4; i = i + ${QB}u) {
      let j = jb + i / DH4;
      let d4 = i % DH4;
      var kx = vec4<f32>(0.0);
      var vx = vec4<f32>(0.0);
      if (j < jEnd) {
        let base = ((P.S * b + j) * P.Hkv + kvh) * DH;
        kx = ${tileLoad('k', half, Dh)};
        vx = ${tileLoad('v', half, Dh)};
      }
      ks[i] = kx;
      vs[i] = vx;
    }
    workgroupBarrier();
    if (live) {
      let rEnd = min(KB, jLast + 1u - min(jb, jLast + 1u));
      for (var r = 0u; r < rEnd; r = r + 1u) {
        var s = 0.0;
        for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { s = s + dot(qv[d4], ks[r * DH4 + d4]); }
        let mNew = max(m, s);
        let corr = exp(m - mNew);
        let p = exp(s - mNew);
        l = l * corr + p;
        for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) { acc[d4] = acc[d4] * corr + p * vs[r * DH4 + d4]; }
        m = mNew;
      }
    }
    workgroupBarrier();
  }
  if (!live) { return; }
  let lseAt = (b * P.H + h) * P.T + t;
  var inv = 0.0;
  if (l == 0.0) { lse[lseAt] = 0.0; } else { lse[lseAt] = m + log(l); inv = 1.0 / l; }
  for (var d4 = 0u; d4 < DH4; d4 = d4 + 1u) {
    let val = acc[d4] * inv;
    for (var c = 0u; c < 4u; c = c + 1u) {
      let d = d4 * 4u + c;
      if (d < DH) { o[qBase + d] = val[c]; }
    }
  }
}
`;
  return { key: `attentionFlash:${kv}:${Dh}`, code, bindings, params: flashParams };
}

/** Workgroups per (sequence, head): blocks of 64 queries. */
export function flashBlocks(T: number): number {
  return Math.ceil(T / FLASH_QUERIES);
}

export const attentionFlashProgram = cached(buildAttentionFlashProgram);
