// Loads the WebAssembly SIMD kernels (bytes from modules.generated.ts: one module per kernel family) into a memory
// the caller owns, picking the relaxed-SIMD builds (fused multiply-add) when this runtime validates them and the
// plain-SIMD builds otherwise. Each build also exists over a shared memory (threads.ts: a helper worker runs the
// same kernels on the same bytes); those load only into a WebAssembly.Memory created with shared: true.
// Works the same in Node and in the page: no fetch, no node:* (atob decodes the embedded bytes).

import { WASM_MODULES_BASE64, WASM_RESERVED_BYTES } from '../../kernels/wasm/modules.generated.ts';

export type WasmVariant = 'relaxed-simd' | 'simd';

/** The functions the AssemblyScript module exports (pointers are byte offsets, see as/*.ts). */
export interface WasmKernelExports {
  packA(a: number, ap: number, M: number, K: number, transA: number): void;
  packB(b: number, bp: number, N: number, K: number, transB: number): void;
  matmul(
    ap: number,
    bp: number,
    c: number,
    bias: number,
    M: number,
    N: number,
    K: number,
    alpha: number,
    beta: number,
  ): void;
  /** the 4x8 kernel on op(A) in place and op(B) in panels (as/matmul-direct.ts for the strides) */
  matmulDirect(
    a: number,
    transA: number,
    lda: number,
    b: number,
    bStep: number,
    bPanel: number,
    c: number,
    bias: number,
    M: number,
    N: number,
    K: number,
    alpha: number,
    beta: number,
  ): void;
  matmulFewRows(
    a: number,
    b: number,
    c: number,
    bias: number,
    M: number,
    N: number,
    K: number,
    transB: number,
    alpha: number,
    beta: number,
  ): void;
  /** packB / matmulFewRows with B stored as halves (bf16 = 1: bfloat16, 0: IEEE f16), widened to f32 as read */
  packBHalf(b: number, bp: number, N: number, K: number, transB: number, bf16: number): void;
  matmulFewRowsHalf(
    a: number,
    b: number,
    c: number,
    bias: number,
    M: number,
    N: number,
    K: number,
    transB: number,
    alpha: number,
    beta: number,
    bf16: number,
    tmp: number,
  ): void;
  widenHalf(src: number, dst: number, n: number, bf16: number): void;
  /** out rows = table rows ids[r] (D floats); the first r with an id outside [0, V), or -1 */
  gatherRows(ids: number, table: number, out: number, R: number, D: number, V: number): number;
  /** qkv rows split into q and the k, v cache rows, then RoPE on q and the new k rows (as/elementwise.ts) */
  qkvRope(
    qkv: number,
    q: number,
    k: number,
    v: number,
    pos: number,
    cosT: number,
    sinT: number,
    B: number,
    T: number,
    H: number,
    Hkv: number,
    Dh: number,
    Sdst: number,
    dstRow0: number,
  ): void;
  attention(
    q: number,
    k: number,
    v: number,
    keyStart: number,
    o: number,
    lse: number,
    scores: number,
    B: number,
    T: number,
    S: number,
    past: number,
    H: number,
    Hkv: number,
    Dh: number,
  ): void;
  attentionBackward(
    q: number,
    k: number,
    v: number,
    keyStart: number,
    o: number,
    lse: number,
    dout: number,
    dq: number,
    dk: number,
    dv: number,
    B: number,
    T: number,
    S: number,
    past: number,
    H: number,
    Hkv: number,
    Dh: number,
  ): void;
  rmsnorm(x: number, w: number, y: number, rstd: number, R: number, D: number, eps: number): void;
  rmsnormBackward(
    x: number,
    w: number,
    rstd: number,
    dy: number,
    dx: number,
    dw: number,
    R: number,
    D: number,
    accumulate: number,
  ): void;
  swiglu(g: number, u: number, h: number, n: number): void;
  swigluPacked(gu: number, h: number, R: number, F: number): void;
  swigluBackward(g: number, u: number, dh: number, dg: number, du: number, n: number): void;
  axpby(x: number, y: number, n: number, a: number, b: number): void;
  rope(
    x: number,
    pos: number,
    cosT: number,
    sinT: number,
    R: number,
    nHeads: number,
    Dh: number,
    inverse: number,
  ): void;
  sumSquares(x: number, n: number): number;
  adamw(
    p: number,
    g: number,
    m: number,
    v: number,
    n: number,
    lr: number,
    beta1: number,
    beta2: number,
    oneMinusBeta1: number,
    oneMinusBeta2: number,
    eps: number,
    weightDecay: number,
    bc1: number,
    bc2: number,
    gradScale: number,
  ): void;
  logprobChunk(
    logits: number,
    R: number,
    n: number,
    v0: number,
    target: number,
    m: number,
    s: number,
    t: number,
    picked: number,
  ): void;
  dlogitsChunk(
    dl: number,
    R: number,
    n: number,
    v0: number,
    target: number,
    lse: number,
    entropy: number,
    coef: number,
    entCoef: number,
  ): void;
}

export { WASM_RESERVED_BYTES };

function decode(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** every family's module bytes for one variant, over an ordinary (shared = false) or a shared memory */
const cachedBytes = new Map<string, Uint8Array<ArrayBuffer>[]>();
function moduleBytes(variant: WasmVariant, shared: boolean): Uint8Array<ArrayBuffer>[] {
  const key = `${variant}${shared ? '-shared' : ''}`;
  let list = cachedBytes.get(key);
  if (!list) {
    list = Object.values(WASM_MODULES_BASE64).map((m) =>
      decode(variant === 'relaxed-simd' ? (shared ? m.relaxedShared : m.relaxed) : shared ? m.simdShared : m.simd),
    );
    cachedBytes.set(key, list);
  }
  return list;
}

function validates(variant: WasmVariant, shared = false): boolean {
  return moduleBytes(variant, shared).every((bytes) => WebAssembly.validate(bytes));
}

/** Whether this runtime can run the shared-memory builds: SharedArrayBuffer exists (in a page only when it is
 *  cross-origin isolated), a shared WebAssembly.Memory can be made, and the threads feature validates. */
export function sharedWasmSupported(variant: WasmVariant): boolean {
  if (typeof WebAssembly === 'undefined' || typeof SharedArrayBuffer === 'undefined') return false;
  if ((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === false) return false;
  try {
    if (!(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer))
      return false;
  } catch {
    return false;
  }
  return validates(variant, true);
}

/** Which builds this JavaScript engine accepts (Node 20 needs --experimental-wasm-relaxed-simd for relaxed). */
export function wasmSupport(): Record<WasmVariant, boolean> {
  if (typeof WebAssembly === 'undefined') return { 'relaxed-simd': false, simd: false };
  return { 'relaxed-simd': validates('relaxed-simd'), simd: validates('simd') };
}

/** The fastest supported variant, or null when this runtime has no WebAssembly SIMD. */
export function bestWasmVariant(): WasmVariant | null {
  const s = wasmSupport();
  return s['relaxed-simd'] ? 'relaxed-simd' : s.simd ? 'simd' : null;
}

/** Instantiate one build of every kernel module over `memory` (the shared build when `memory` is shared). Throws
 *  when the runtime rejects that build. */
export async function instantiateWasmKernels(
  memory: WebAssembly.Memory,
  variant: WasmVariant,
): Promise<WasmKernelExports> {
  const shared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
  if (!validates(variant, shared)) {
    throw new Error(
      `WebAssembly ${variant}${shared ? ' shared-memory' : ''} kernels are not supported by this runtime (WebAssembly.validate failed)`,
    );
  }
  const imports = {
    env: {
      memory,
      abort: (_msg: number, _file: number, line: number, col: number) => {
        throw new Error(`WebAssembly kernel aborted at line ${line}:${col}`);
      },
    },
  };
  const exports: Record<string, unknown> = {};
  for (const bytes of moduleBytes(variant, shared)) {
    const { instance } = await WebAssembly.instantiate(bytes, imports);
    for (const [name, value] of Object.entries(instance.exports))
      if (typeof value === 'function') exports[name] = value;
  }
  const names = [
    'packA',
    'packB',
    'matmul',
    'matmulDirect',
    'matmulFewRows',
    'packBHalf',
    'matmulFewRowsHalf',
    'widenHalf',
    'attention',
    'attentionBackward',
    'logprobChunk',
    'dlogitsChunk',
    'rmsnorm',
    'rmsnormBackward',
    'swiglu',
    'swigluPacked',
    'swigluBackward',
    'axpby',
    'adamw',
    'rope',
    'sumSquares',
    'gatherRows',
    'qkvRope',
  ];
  for (const name of names) {
    if (typeof exports[name] !== 'function') throw new Error(`WebAssembly kernels: the modules export no '${name}'`);
  }
  return exports as unknown as WasmKernelExports;
}
