// WGSL matmul (kernel `matmul`, and the building block of lmHead / logprob / logprobBackward):
//   C[M,N] = alpha * op(A) @ op(B) + beta * C  (+ bias[N])
// Operands are addressed by element offset and leading dimension (row stride) so the host can run one piece of
// a tensor split over several buffers:
//   A(m,k) = a[offA + m*lda + k]   (transA = 0, A stored [M,K])  or  a[offA + k*lda + m]  (transA = 1, [K,M])
//   B(k,n) = b[offB + k*ldb + n]   (transB = 0, B stored [K,N])  or  b[offB + n*ldb + k]  (transB = 1, [N,K])
//   C(m,n) = c[offC + m*ldc + n],  bias(n) = bias[offBias + n]
// Each thread owns a 4x4 block of C in registers and walks K without workgroup memory or barriers (the fastest
// form on SwiftShader, where barriers are costly; still a sound kernel on real GPUs). An 8x8 workgroup covers a
// 32x32 tile. Edge rows/columns are clamped for loads and skipped for stores, so any M, N, K work.
import { cached, header, type ElemType, type ParamSpec, type WgslProgram } from './common.ts';

export const MATMUL_TILE = 32;

export const matmulParams = {
  M: 'u32',
  N: 'u32',
  K: 'u32',
  lda: 'u32',
  ldb: 'u32',
  ldc: 'u32',
  offA: 'u32',
  offB: 'u32',
  offC: 'u32',
  offBias: 'u32',
  hasBias: 'u32',
  alpha: 'f32',
  beta: 'f32',
} as const satisfies ParamSpec;

export interface MatmulVariant {
  transA: 0 | 1;
  transB: 0 | 1;
  /** storage of A, B and bias: f32 or packed f16 */
  a: ElemType;
  b: ElemType;
  bias: ElemType;
}

/** The 4x4 register tile's epilogue: C[m0+i, n0+j] = alpha * acc + bias (+ beta * C), skipping rows/columns past M, N. */
const STORE_TILE_4X4 = `  let accs = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
  for (var i = 0u; i < 4u; i = i + 1u) {
    let m = m0 + i;
    if (m >= P.M) { break; }
    for (var j = 0u; j < 4u; j = j + 1u) {
      let n = n0 + j;
      if (n >= P.N) { break; }
      let at = P.offC + m * P.ldc + n;
      var out = P.alpha * accs[i][j] + biasv[j];
      if (P.beta != 0.0) { out = out + P.beta * c[at]; }
      c[at] = out;
    }
  }`;

function buildMatmulProgram(v: MatmulVariant): WgslProgram {
  const bindings = [
    { name: 'a', elem: v.a, access: 'read' },
    { name: 'b', elem: v.b, access: 'read' },
    { name: 'bias', elem: v.bias, access: 'read' },
    { name: 'c', elem: 'f32', access: 'read_write' },
  ] as const;
  // index of A(row r_i, k) and B(k, col c_j) in terms of per-thread bases
  const aIdx = v.transA ? (i: number) => `aK + r${i}` : (i: number) => `aRow${i} + k`;
  const bIdx = v.transB ? (j: number) => `bCol${j} + k` : (j: number) => `bK + c${j}`;
  const quad = [0, 1, 2, 3];
  const code = `${header(matmulParams, bindings)}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n0 = gid.x * 4u;
  let m0 = gid.y * 4u;
  if (n0 >= P.N || m0 >= P.M) { return; }
${quad.map((i) => `  let r${i} = min(m0 + ${i}u, P.M - 1u);`).join('\n')}
${quad.map((j) => `  let c${j} = min(n0 + ${j}u, P.N - 1u);`).join('\n')}
${v.transA ? '' : quad.map((i) => `  let aRow${i} = P.offA + r${i} * P.lda;`).join('\n')}
${v.transB ? quad.map((j) => `  let bCol${j} = P.offB + c${j} * P.ldb;`).join('\n') : ''}
  var acc0 = vec4<f32>(0.0);
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);
  for (var k = 0u; k < P.K; k = k + 1u) {
${v.transA ? '    let aK = P.offA + k * P.lda;' : ''}
${v.transB ? '' : '    let bK = P.offB + k * P.ldb;'}
    let av = vec4<f32>(${quad.map((i) => `ld_a(${aIdx(i)})`).join(', ')});
    let bv = vec4<f32>(${quad.map((j) => `ld_b(${bIdx(j)})`).join(', ')});
    acc0 = acc0 + av.x * bv;
    acc1 = acc1 + av.y * bv;
    acc2 = acc2 + av.z * bv;
    acc3 = acc3 + av.w * bv;
  }
  var biasv = vec4<f32>(0.0);
  if (P.hasBias == 1u) {
    biasv = vec4<f32>(${quad.map((j) => `ld_bias(P.offBias + c${j})`).join(', ')});
  }
${STORE_TILE_4X4}
}
`;
  return { key: `matmul:${v.transA}${v.transB}:${v.a}:${v.b}:${v.bias}`, code, bindings, params: matmulParams };
}

export const matmulProgram = cached(buildMatmulProgram);

/** The vec4 variant: same semantics, for operands whose K (and M for transA, N for !transB), leading
 *  dimensions and offsets are multiples of 4. It walks K four at a time: a 4x4 tile of A and of B arrive as
 *  four vec4 loads each (transposed in registers where the layout stores them the other way), and each of
 *  the four accumulator rows takes one mat4x4 * vec4 (64 multiply-adds per 8 loads instead of per 32).
 *  An f16 operand is read as vec2<u32> (four halves) and unpacked to a vec4<f32>. */
/** a and b of the vec4 variant as arrays of 4-element groups: vec4<f32>, or four halves in a vec2<u32>, read by a4() / b4() */
export function vec4View(name: 'a' | 'b', elem: 'f32' | 'f16'): string {
  return elem === 'f32'
    ? `@group(0) @binding(${name === 'a' ? 1 : 2}) var<storage, read> ${name}: array<vec4<f32>>;\nfn ${name}4(i: u32) -> vec4<f32> { return ${name}[i]; }`
    : `@group(0) @binding(${name === 'a' ? 1 : 2}) var<storage, read> ${name}: array<vec2<u32>>;\n` +
        `fn ${name}4(i: u32) -> vec4<f32> { let w = ${name}[i]; return vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y)); }`;
}

function buildMatmulVec4Program(
  transA: 0 | 1,
  transB: 0 | 1,
  aElem: 'f32' | 'f16',
  bElem: 'f32' | 'f16',
  biasElem: ElemType,
): WgslProgram {
  const bindings = [
    { name: 'a', elem: aElem, access: 'read', declare: false },
    { name: 'b', elem: bElem, access: 'read', declare: false },
    { name: 'bias', elem: biasElem, access: 'read' },
    { name: 'c', elem: 'f32', access: 'read_write' },
  ] as const;
  const quad = [0, 1, 2, 3];
  const head = `${header(matmulParams, bindings)}\n${vec4View('a', aElem)}\n${vec4View('b', bElem)}`;
  const loadA = transA
    ? `    let at = transpose(mat4x4<f32>(${quad.map((kk) => `a4((P.offA + (k + ${kk}u) * P.lda + m0) >> 2u)`).join(', ')}));`
    : `    let at = mat4x4<f32>(${quad.map((i) => `a4(aRow${i} + (k >> 2u))`).join(', ')});`;
  const loadB = transB
    ? `    let bm = transpose(mat4x4<f32>(${quad.map((j) => `b4(bCol${j} + (k >> 2u))`).join(', ')}));`
    : `    let bm = mat4x4<f32>(${quad.map((kk) => `b4((P.offB + (k + ${kk}u) * P.ldb + n0) >> 2u)`).join(', ')});`;
  const code = `${head}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n0 = gid.x * 4u;
  let m0 = gid.y * 4u;
  if (n0 >= P.N || m0 >= P.M) { return; }
${transA ? '' : quad.map((i) => `  let aRow${i} = (P.offA + min(m0 + ${i}u, P.M - 1u) * P.lda) >> 2u;`).join('\n')}
${transB ? quad.map((j) => `  let bCol${j} = (P.offB + min(n0 + ${j}u, P.N - 1u) * P.ldb) >> 2u;`).join('\n') : ''}
  var acc0 = vec4<f32>(0.0);
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);
  for (var k = 0u; k < P.K; k = k + 4u) {
${loadA}
${loadB}
    acc0 = acc0 + bm * at[0];
    acc1 = acc1 + bm * at[1];
    acc2 = acc2 + bm * at[2];
    acc3 = acc3 + bm * at[3];
  }
  var biasv = vec4<f32>(0.0);
  if (P.hasBias == 1u) {
    biasv = vec4<f32>(${quad.map((j) => `ld_bias(P.offBias + min(n0 + ${j}u, P.N - 1u))`).join(', ')});
  }
${STORE_TILE_4X4}
}
`;
  return { key: `matmulVec4:${transA}${transB}:${aElem}:${bElem}:${biasElem}`, code, bindings, params: matmulParams };
}

export const matmulVec4Program = cached(buildMatmulVec4Program);

const four = (x: number) => x % 4 === 0;

/** Whether one matmul dispatch may use the vec4 variant (rows and offsets aligned to 4 elements; buffers a
 *  multiple of 16 bytes, which also covers f16 buffers read 8 bytes at a time). */
export function vec4Eligible(d: {
  M: number;
  N: number;
  K: number;
  lda: number;
  ldb: number;
  offA: number;
  offB: number;
  transA: 0 | 1;
  transB: 0 | 1;
  aBytes: number;
  bBytes: number;
}): boolean {
  return (
    four(d.K) &&
    four(d.lda) &&
    four(d.ldb) &&
    four(d.offA) &&
    four(d.offB) &&
    (d.transA ? four(d.M) : true) &&
    (d.transB ? true : four(d.N)) &&
    d.aBytes % 16 === 0 &&
    d.bBytes % 16 === 0
  );
}
