// Shared pieces of the WGSL kernels: how a program declares its uniform parameters and storage bindings, and
// how a float tensor stored as f16 is read. Every kernel file builds a `WgslProgram` from a template function
// (workgroup size and binding dtypes are template parameters); the WebGPU backend compiles each distinct
// `key` once and caches the pipeline.
//
// f16 storage: a tensor of dtype 'f16' is bound as array<u32> (two halves per word, element 2j in the low half)
// and read with unpack2x16float, which is core WGSL. So f16 weights work on every adapter, with or without the
// `shader-f16` feature, and arithmetic stays f32. (shader-f16 would only add native f16 math, which we do not
// use: accumulation is always f32.)

/** Scalar type of one uniform field (all fields are 4 bytes). */
export type ParamType = 'u32' | 'i32' | 'f32';

/** Ordered uniform fields: name -> type. */
export type ParamSpec = Readonly<Record<string, ParamType>>;

/** How a storage binding's elements are typed in WGSL. 'f16' means packed pairs in array<u32>. */
export type ElemType = 'f32' | 'f16' | 'i32' | 'u32';

export interface BindingSpec {
  name: string;
  elem: ElemType;
  access: 'read' | 'read_write';
  /** false: the program declares this binding itself (e.g. as an array of vectors); header() skips it */
  declare?: boolean;
}

export interface WgslProgram {
  /** unique per distinct WGSL text (pipeline cache key) */
  key: string;
  code: string;
  /** storage bindings, in order: @binding(1), @binding(2), ... (@binding(0) is the uniform block) */
  bindings: readonly BindingSpec[];
  params: ParamSpec;
  /** threads per workgroup of a 1-D program (its grid comes from grid1d(n, wg)) */
  wg?: number;
}

/** Bytes of one uniform block of `params`, rounded up to 16 (uniform struct size rule). */
export function paramBytes(params: ParamSpec): number {
  return Math.max(16, Math.ceil((Object.keys(params).length * 4) / 16) * 16);
}

/** Writes `values` into `view` at byteOffset following the field order and types of `params`. */
export function packParams(
  params: ParamSpec,
  values: Readonly<Record<string, number>>,
  view: DataView,
  byteOffset: number,
  kernel: string,
): void {
  let at = byteOffset;
  for (const [name, type] of Object.entries(params)) {
    const v = values[name];
    if (v === undefined || (Number.isNaN(v) && type !== 'f32')) {
      throw new Error(`WebGPU kernel ${kernel}: uniform parameter '${name}' is missing or not a number`);
    }
    if (type === 'f32') view.setFloat32(at, v, true);
    else if (type === 'i32') view.setInt32(at, v, true);
    else {
      if (v < 0 || !Number.isInteger(v))
        throw new Error(`WebGPU kernel ${kernel}: '${name}' = ${v} must be a non-negative integer`);
      view.setUint32(at, v, true);
    }
    at += 4;
  }
}

function storageType(elem: ElemType): string {
  return elem === 'f16' ? 'u32' : elem;
}

/** The WGSL header: params struct, uniform binding, storage bindings and a `ld_<name>(i) -> f32` reader per
 *  float binding (f16 bindings unpack their half). */
export function header(params: ParamSpec, bindings: readonly BindingSpec[]): string {
  const fields = Object.entries(params).map(([n, t]) => `  ${n}: ${t},`);
  const lines = [
    `struct Params {`,
    ...(fields.length ? fields : ['  unused: u32,']),
    `};`,
    `@group(0) @binding(0) var<uniform> P: Params;`,
  ];
  bindings.forEach((b, i) => {
    if (b.declare === false) return;
    lines.push(`@group(0) @binding(${i + 1}) var<storage, ${b.access}> ${b.name}: array<${storageType(b.elem)}>;`);
    if (b.elem === 'f16') {
      lines.push(
        `fn ld_${b.name}(i: u32) -> f32 {`,
        `  let pair = unpack2x16float(${b.name}[i >> 1u]);`,
        `  return select(pair.x, pair.y, (i & 1u) == 1u);`,
        `}`,
      );
    } else if (b.elem === 'f32') {
      lines.push(`fn ld_${b.name}(i: u32) -> f32 { return ${b.name}[i]; }`);
    }
  });
  return lines.join('\n');
}

/** Workgroup counts for a 1-D grid of `n` threads in groups of `wg`, folded into y when x would exceed 65535. */
export function grid1d(n: number, wg: number): [number, number, number] {
  const groups = Math.max(1, Math.ceil(n / wg));
  if (groups <= 65535) return [groups, 1, 1];
  const y = Math.ceil(groups / 65535);
  return [Math.ceil(groups / y), y, 1];
}

/** WGSL that computes the flat thread index `gid` of a grid made by grid1d (use with @builtin(num_workgroups)). */
export function flatIndex(wg: number): string {
  return `let gid = gidv.x + gidv.y * nwg.x * ${wg}u;`;
}

/** The entry-point signature matching flatIndex. */
export function entry1d(wg: number): string {
  return (
    `@compute @workgroup_size(${wg})\nfn main(@builtin(global_invocation_id) gidv: vec3<u32>, ` +
    `@builtin(num_workgroups) nwg: vec3<u32>) {\n  ${flatIndex(wg)}`
  );
}

/** Memoise a program builder by its arguments, so the WGSL text is generated once per variant, not per dispatch. */
export function cached<A extends unknown[]>(build: (...args: A) => WgslProgram): (...args: A) => WgslProgram {
  const memo = new Map<string, WgslProgram>();
  return (...args: A) => {
    const key = JSON.stringify(args);
    let program = memo.get(key);
    if (!program) {
      program = build(...args);
      memo.set(key, program);
    }
    return program;
  };
}
