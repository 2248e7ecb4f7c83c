// Inputs and the oracle for attentionBackward with past > 0 (tests/engine/attention-backward-past.test.ts and its
// WebGPU twin): random q, k, v and dout; o and lse from the CPU backend's forward over the same cache; the oracle is
// the past = 0 backward over the whole sequence [context; own rows] with zero q, o, dout and lse at the context rows.
import type { CpuBackend } from '../../src/engine/backends/cpu.ts';
import type { KernelArgs } from '../../src/engine/kernels/catalog.ts';
import { Rng } from '../../src/util/rng.ts';
import type { TensorInput } from './kernel-compare.ts';

/** [B, T, past, H, Hkv, Dh, keyStart]: GQA and MHA, left padding inside the context, a query row past+T < S. */
export const attentionPastCases: Array<[number, number, number, number, number, number, number[]]> = [
  [3, 5, 7, 4, 2, 8, [0, 3, 6]],
  [2, 4, 3, 2, 2, 6, [1, 0]],
  [2, 1, 9, 4, 1, 16, [0, 8]],
];

export interface PastInputs {
  tensors: Record<string, TensorInput>;
  p: KernelArgs<'attentionBackward'>['p'];
  S: number;
}

const size = (shape: number[]) => shape.reduce((a, b) => a * b, 1);
const nan = (shape: number[]): TensorInput => ({ shape, data: new Float32Array(size(shape)).fill(NaN) });

/** Inputs of one case; S = past + T + 1 (one cache row no query sees). o and lse come from `cpu`'s forward. */
export function pastInputs(
  cpu: CpuBackend,
  B: number,
  T: number,
  past: number,
  H: number,
  Hkv: number,
  Dh: number,
  keyStart: number[],
): PastInputs {
  const S = past + T + 1;
  const rng = new Rng(B * 1000 + T * 100 + past);
  const f32 = (shape: number[], scale = 1): TensorInput => ({
    shape,
    data: Float32Array.from({ length: size(shape) }, () => scale * rng.normal()),
  });
  const q = f32([B, T, H, Dh], 0.5),
    k = f32([B, S, Hkv, Dh], 0.5),
    v = f32([B, S, Hkv, Dh]),
    ks: TensorInput = { shape: [B], data: Int32Array.from(keyStart), dtype: 'i32' };
  const put = (x: TensorInput) => {
    const t = cpu.alloc(x.shape, x.dtype ?? 'f32');
    cpu.upload(t, x.data);
    return t;
  };
  const t = {
    q: put(q),
    k: put(k),
    v: put(v),
    keyStart: put(ks),
    o: cpu.alloc([B, T, H, Dh]),
    lse: cpu.alloc([B, H, T]),
  };
  cpu.run('attention', { t, p: { B, T, S, past, H, Hkv, Dh } });
  const o: TensorInput = { shape: [B, T, H, Dh], data: cpu.f32(t.o).slice() };
  const lse: TensorInput = { shape: [B, H, T], data: cpu.f32(t.lse).slice() };
  for (const x of Object.values(t)) cpu.free(x);
  return {
    tensors: {
      q,
      k,
      v,
      keyStart: ks,
      o,
      lse,
      dout: f32([B, T, H, Dh]),
      dq: nan([B, T, H, Dh]),
      dk: nan([B, S, Hkv, Dh]),
      dv: nan([B, S, Hkv, Dh]),
    },
    p: { B, T, S, past, H, Hkv, Dh },
    S,
  };
}

/** dq, dk, dv of attentionBackward on `be` with these inputs. */
export function runPast(be: CpuBackend, x: PastInputs): { dq: Float32Array; dk: Float32Array; dv: Float32Array } {
  return runOn(be, x.tensors, x.p);
}

function runOn(
  be: CpuBackend,
  inputs: Record<string, TensorInput>,
  p: KernelArgs<'attentionBackward'>['p'],
): { dq: Float32Array; dk: Float32Array; dv: Float32Array } {
  const t: Record<string, ReturnType<CpuBackend['alloc']>> = {};
  for (const [name, x] of Object.entries(inputs)) {
    t[name] = be.alloc(x.shape, x.dtype ?? 'f32', name);
    be.upload(t[name], x.data);
  }
  be.run('attentionBackward', { t, p } as unknown as KernelArgs<'attentionBackward'>);
  const read = (name: string) => Float32Array.from(be.f32(t[name]));
  const out = { dq: read('dq'), dk: read('dk'), dv: read('dv') };
  for (const x of Object.values(t)) be.free(x);
  return out;
}

/** The past = 0 backward over [B, S] rows (context queries inert), cut back to the past > 0 kernel's shapes. */
export function concatenatedOracle(
  cpu: CpuBackend,
  x: PastInputs,
): { dq: Float32Array; dk: Float32Array; dv: Float32Array } {
  const { B, T, past, H, Hkv, Dh } = x.p;
  const S = x.S;
  const spread = (a: TensorInput, width: number, perHead: boolean): TensorInput => {
    // [B, T, width] -> [B, S, width] at rows past.., zero elsewhere; lse [B, H, T] -> [B, H, S]
    const src = a.data as Float32Array;
    const out = new Float32Array(perHead ? B * H * S : B * S * width);
    if (perHead) {
      for (let bh = 0; bh < B * H; bh++) out.set(src.subarray(bh * T, bh * T + T), bh * S + past);
      return { shape: [B, H, S], data: out };
    }
    for (let b = 0; b < B; b++) out.set(src.subarray(b * T * width, (b + 1) * T * width), (b * S + past) * width);
    return { shape: [B, S, width], data: out };
  };
  const qw = H * Dh;
  const got = runOn(
    cpu,
    {
      ...x.tensors,
      q: spread(x.tensors.q, qw, false),
      o: spread(x.tensors.o, qw, false),
      dout: spread(x.tensors.dout, qw, false),
      lse: spread(x.tensors.lse, 0, true),
      dq: { shape: [B, S, H, Dh], data: new Float32Array(B * S * qw) },
    },
    { B, T: S, S, past: 0, H, Hkv, Dh },
  );
  const dq = new Float32Array(B * T * qw);
  for (let b = 0; b < B; b++) dq.set(got.dq.subarray((b * S + past) * qw, (b * S + past + T) * qw), b * T * qw);
  return { dq, dk: got.dk, dv: got.dv };
}
