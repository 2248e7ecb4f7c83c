// WGSL tiled matmul with workgroup memory (kernel `matmul` for M >= 16 rows: prefill, scoring, backward), the same
// semantics and operand addressing as kernels/wgsl/matmul.ts (CPU twin: kernels/cpu/matmul.ts):
//   C[M,N] = alpha * op(A) @ op(B) + beta * C (+ bias[N]);  A, B and bias f32 or packed f16 (read with ld_*),
//   accumulation in f32.
// A 16x16 workgroup computes a BM x BN tile of C (BM = BN = 16·T, T = 4 outputs per thread and direction, or 2):
// for each slice of BK = 16 along K it stages A's BM x 16 and B's 16 x BN elements in workgroup memory (each
// thread loads BM·16/256 of each, consecutive threads reading consecutive addresses of the stored layout, whichever
// of the four transposition cases it is), then every thread accumulates its T x T outputs from the shared tiles.
// So each element of A and B is read from device memory once per workgroup instead of once per thread, the reuse
// a GEMM needs on a real GPU. Thread (tx, ty) owns rows ty + 16i and columns tx + 16j of the tile (strided), so the
// shared reads of a row of threads are consecutive. Edges are zero-filled on load and skipped on store; any M, N, K.
// The K loop is sequential per output (k = 0, 1, ...), as in the other matmul kernels. Split-K (variant `split`, for
// products with few outputs and a long K, such as LoRA's rank-sized dA = dYᵀ·X over thousands of rows): each
// workgroup z sums its own K range into a partials buffer, and matmulSplitReduce adds the slices in order and applies
// alpha, bias and beta.
// Padded tiles (`pad`): each staged row of As [16][BM] and Bs [16][BN] is one element longer, so the staging stores
// of a layout whose stored rows run along k (A not transposed, B transposed: consecutive threads write one column,
// a stride of BM words, all in one memory bank) land in different banks. Vector loads (`vec`, f32 or f16 operands
// whose contiguous dimension, leading dimensions and offsets are multiples of 4, as for the vec4 kernel): each
// thread stages 4 consecutive elements of the stored layout with one vec4 load (four halves for f16); other shapes
// take the scalar loads.
import { cached, entry1d, header, type ElemType, type WgslProgram } from './common.ts';
import { matmulParams, vec4View, type MatmulVariant } from './matmul.ts';

/** Threads per side of the workgroup. */
const WG = 16;
/** K slice staged per barrier pair. */
const BK = 16;

export interface TiledVariant extends MatmulVariant {
  /** outputs per thread along each side: tile = 16·t */
  t: 2 | 4;
  /** split-K: workgroup z sums K range [z·kPer, (z+1)·kPer) into its own slice of a partials buffer (c at offC +
   *  z·slice, plain sums: no alpha, bias or beta), which matmulSplitReduce then combines */
  split?: boolean;
  /** staged rows padded by one element (no bank conflicts on the staging stores) */
  pad?: boolean;
  /** vec4 staging loads (operands aligned as vec4Eligible says; not with split) */
  vec?: boolean;
}

export const splitParams = { ...matmulParams, kPer: 'u32', slice: 'u32' } as const;

/** Rows (= columns) of C one workgroup of variant t covers. */
export function tiledTile(t: 2 | 4): number {
  return WG * t;
}

/** WGSL statements storing the 4 lanes of vec4 `x` into workgroup array `arr` at the indices `at` gives. */
const put = (arr: string, at: (c: number) => string) =>
  [0, 1, 2, 3].map((c) => `        ${arr}[${at(c)}] = x[${c}];`).join('\n');

/** WGSL staging both tiles with vec4 loads: per thread at most one group of 4 consecutive stored elements each. */
function vecStaging(v: TiledVariant, BM: number, BN: number, BMP: number, BNP: number): string {
  const groups = (BM * BK) / 4;
  const loop = (body: string) => `    for (var p = 0u; p < ${Math.ceil(groups / (WG * WG))}u; p = p + 1u) {
      let e = flat + p * ${WG * WG}u;
      if (e < ${groups}u) {
${body}
      }
    }`;
  const a = v.transA
    ? `        let kk = e / ${BM / 4}u; let mq = e % ${BM / 4}u; let m = m0 + mq * 4u; let k = k0 + kk;
        var x = vec4<f32>(0.0); if (m < P.M && k < kStop) { x = a4((P.offA + k * P.lda + m) >> 2u); }
${put('As', (c) => `kk * ${BMP}u + mq * 4u + ${c}u`)}`
    : `        let mm = e / ${BK / 4}u; let kq = e % ${BK / 4}u; let m = m0 + mm; let k = k0 + kq * 4u;
        var x = vec4<f32>(0.0); if (m < P.M && k < kStop) { x = a4((P.offA + m * P.lda + k) >> 2u); }
${put('As', (c) => `(kq * 4u + ${c}u) * ${BMP}u + mm`)}`;
  const b = v.transB
    ? `        let nn = e / ${BK / 4}u; let kq = e % ${BK / 4}u; let n = n0 + nn; let k = k0 + kq * 4u;
        var x = vec4<f32>(0.0); if (n < P.N && k < kStop) { x = b4((P.offB + n * P.ldb + k) >> 2u); }
${put('Bs', (c) => `(kq * 4u + ${c}u) * ${BNP}u + nn`)}`
    : `        let kk = e / ${BN / 4}u; let nq = e % ${BN / 4}u; let n = n0 + nq * 4u; let k = k0 + kk;
        var x = vec4<f32>(0.0); if (n < P.N && k < kStop) { x = b4((P.offB + k * P.ldb + n) >> 2u); }
${put('Bs', (c) => `kk * ${BNP}u + nq * 4u + ${c}u`)}`;
  return `${loop(a)}
${loop(b)}`;
}

function buildTiledProgram(v: TiledVariant): WgslProgram {
  if (v.vec && v.split) throw new Error('tiled matmul: the split-K variant has no vec4 loads');
  const vec = v.vec === true;
  const bindings = [
    { name: 'a', elem: v.a, access: 'read', declare: !vec },
    { name: 'b', elem: v.b, access: 'read', declare: !vec },
    { name: 'bias', elem: v.bias, access: 'read' },
    { name: 'c', elem: 'f32', access: 'read_write' },
  ] as const;
  const T = v.t;
  const BM = WG * T;
  const BN = WG * T;
  const pad = v.pad || vec ? 1 : 0;
  const BMP = BM + pad;
  const BNP = BN + pad;
  const loads = (BM * BK) / (WG * WG); // elements of each tile one thread stages
  const idx = Array.from({ length: T }, (_, i) => i);
  const vecT = `vec${T}<f32>`;
  // stored-layout coordinates of tile element e: consecutive e = consecutive addresses
  const aCoord = v.transA
    ? `let kk = e / ${BM}u; let mm = e % ${BM}u; let m = m0 + mm; let k = k0 + kk;
      var x = 0.0; if (m < P.M && k < kStop) { x = ld_a(P.offA + k * P.lda + m); }`
    : `let mm = e / ${BK}u; let kk = e % ${BK}u; let m = m0 + mm; let k = k0 + kk;
      var x = 0.0; if (m < P.M && k < kStop) { x = ld_a(P.offA + m * P.lda + k); }`;
  const bCoord = v.transB
    ? `let nn = e / ${BK}u; let kk = e % ${BK}u; let n = n0 + nn; let k = k0 + kk;
      var x = 0.0; if (n < P.N && k < kStop) { x = ld_b(P.offB + n * P.ldb + k); }`
    : `let kk = e / ${BN}u; let nn = e % ${BN}u; let n = n0 + nn; let k = k0 + kk;
      var x = 0.0; if (n < P.N && k < kStop) { x = ld_b(P.offB + k * P.ldb + n); }`;
  const params = v.split ? splitParams : matmulParams;
  const views = vec ? `\n${vec4View('a', v.a as 'f32' | 'f16')}\n${vec4View('b', v.b as 'f32' | 'f16')}` : '';
  const scalarStaging = `    for (var p = 0u; p < ${loads}u; p = p + 1u) {
      let e = flat + p * ${WG * WG}u;
      ${aCoord}
      As[kk * ${BMP}u + mm] = x;
    }
    for (var p = 0u; p < ${loads}u; p = p + 1u) {
      let e = flat + p * ${WG * WG}u;
      ${bCoord}
      Bs[kk * ${BNP}u + nn] = x;
    }`;
  const code = `${header(params, bindings)}${views}

var<workgroup> As: array<f32, ${BK * BMP}>; // [k][m] (rows of ${BMP})
var<workgroup> Bs: array<f32, ${BK * BNP}>; // [k][n] (rows of ${BNP})

@compute @workgroup_size(${WG}, ${WG})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let tx = lid.x;
  let ty = lid.y;
  let flat = ty * ${WG}u + tx;
  let m0 = wid.y * ${BM}u;
  let n0 = wid.x * ${BN}u;
${idx.map((i) => `  var acc${i} = ${vecT}(0.0);`).join('\n')}
${v.split ? '  let kBegin = wid.z * P.kPer;\n  let kStop = min(P.K, kBegin + P.kPer);' : '  let kBegin = 0u;\n  let kStop = P.K;'}
  for (var k0 = kBegin; k0 < kStop; k0 = k0 + ${BK}u) {
${vec ? vecStaging(v, BM, BN, BMP, BNP) : scalarStaging}
    workgroupBarrier();
    for (var kk = 0u; kk < ${BK}u; kk = kk + 1u) {
      let bv = ${vecT}(${idx.map((j) => `Bs[kk * ${BNP}u + tx + ${WG * j}u]`).join(', ')});
${idx.map((i) => `      acc${i} = acc${i} + As[kk * ${BMP}u + ty + ${WG * i}u] * bv;`).join('\n')}
    }
    workgroupBarrier();
  }
  let accs = array<${vecT}, ${T}>(${idx.map((i) => `acc${i}`).join(', ')});
  for (var i = 0u; i < ${T}u; i = i + 1u) {
    let m = m0 + ty + ${WG}u * i;
    if (m >= P.M) { break; }
    for (var j = 0u; j < ${T}u; j = j + 1u) {
      let n = n0 + tx + ${WG}u * j;
      if (n >= P.N) { continue; }
${
  v.split
    ? `      c[P.offC + wid.z * P.slice + m * P.ldc + n] = accs[i][j];`
    : `      let at = P.offC + m * P.ldc + n;
      var out = P.alpha * accs[i][j];
      if (P.hasBias == 1u) { out = out + ld_bias(P.offBias + n); }
      if (P.beta != 0.0) { out = out + P.beta * c[at]; }
      c[at] = out;`
}
    }
  }
}
`;
  return {
    key: `matmulTiled${T}${v.split ? 'Split' : ''}${vec ? 'Vec' : pad ? 'Pad' : ''}:${v.transA}${v.transB}:${v.a}:${v.b}:${v.bias}`,
    code,
    bindings,
    params,
  };
}

export const matmulTiledProgram = cached(buildTiledProgram);

/** C[m,n] = alpha Σ_z part[z·slice + m·N + n] (+ bias[n]) (+ beta C): the epilogue of a split-K matmul. */
function buildSplitReduceProgram(biasElem: ElemType): WgslProgram {
  const bindings = [
    { name: 'part', elem: 'f32', access: 'read' },
    { name: 'bias', elem: biasElem, access: 'read' },
    { name: 'c', elem: 'f32', access: 'read_write' },
  ] as const;
  const params = {
    M: 'u32',
    N: 'u32',
    ldc: 'u32',
    offC: 'u32',
    offBias: 'u32',
    hasBias: 'u32',
    alpha: 'f32',
    beta: 'f32',
    splits: 'u32',
    slice: 'u32',
  } as const;
  const code = `${header(params, bindings)}

${entry1d(64)}
  if (gid >= P.M * P.N) { return; }
  let m = gid / P.N;
  let n = gid % P.N;
  var sum = 0.0;
  for (var z = 0u; z < P.splits; z = z + 1u) { sum = sum + part[z * P.slice + gid]; }
  let at = P.offC + m * P.ldc + n;
  var out = P.alpha * sum;
  if (P.hasBias == 1u) { out = out + ld_bias(P.offBias + n); }
  if (P.beta != 0.0) { out = out + P.beta * c[at]; }
  c[at] = out;
}
`;
  return { key: `matmulSplitReduce:${biasElem}`, code, bindings, params, wg: 64 };
}

export const matmulSplitReduceProgram = cached(buildSplitReduceProgram);
