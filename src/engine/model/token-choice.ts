// How the decode loop chooses each next token: from the logits row read back to the host (NextToken), or drawn on
// the device by the catalog's `sample` kernel (DeviceSampler: 16 bytes per row read back), with the rows' token
// masks uploaded for constrained decoding.
import type { Backend, RepeatRecording, Tensor } from '../backend.ts';
import type { SamplingParams } from '../policy/policy.ts';
import { readF32, tensorFrom, TensorScope } from './device-ops.ts';

/** Called with the next-token logits [V] of sequence b at generation step `step` (0 = after the prompt).
 *  Returns the token to feed next, or null when the sequence is finished. */
export type NextToken = (b: number, logits: Float32Array, step: number) => number | null;

/** A token drawn on the device, with its log-prob and the entropy of its distribution at temperature 1. */
export interface DrawnToken {
  token: number;
  logp: number;
  entropy: number;
}

/** Draw every next token on the device with the `sample` kernel. */
export interface DeviceSampler {
  sampling: SamplingParams;
  /** sequence b draws with uniform01(sampling.seed, streams[b], step) */
  streams: readonly number[];
  /** Called with sequence b's drawn token at generation step `step`; returns the token to feed next, or null when
   *  the sequence is finished. */
  next(b: number, drawn: DrawnToken, step: number): number | null;
  /** The token mask of sequence b's draw at `step` (ceil(V / 32) words; the `sample` kernel's mask), or null for
   *  every token. Absent: no sequence is masked (the kernel's plain variant). */
  mask?(b: number, step: number): Uint32Array | null;
}
/** The `sample` kernel's index, stream and output tensors for a fixed set of rows. */
export interface SamplerBuffers {
  rowOf: Tensor;
  stream: Tensor;
  out: Tensor;
  /** the sequences whose streams `stream` holds (uploaded once), or null */
  streamsOf: readonly number[] | null;
  /** the draw as recorded by Backend.repeat (a decode state's buffers draw once per step) */
  recording: RepeatRecording | null;
}

/** Sampler buffers for R rows (the caller frees them); none are left allocated when one allocation fails. */
export function samplerBuffers(be: Backend, R: number): SamplerBuffers {
  const scope = new TensorScope(be);
  try {
    return {
      rowOf: scope.alloc([R], 'sample.rowOf', 'i32'),
      stream: scope.alloc([R], 'sample.stream', 'i32'),
      out: scope.alloc([R, 4], 'sample.out', 'i32'),
      streamsOf: null,
      recording: null,
    };
  } catch (err) {
    scope.freeAll();
    throw err;
  }
}

/** The choice of every row r (sequence seqOf[r], logits row rowOf[r] of `logits`) at `step`; rows with live[r]
 *  false are skipped (null). Host chooser: reads the logits back. Device sampler: draws with the `sample` kernel and
 *  reads back 16 bytes per row. */
export async function chooseAll(
  be: Backend,
  chooser: NextToken | DeviceSampler,
  logits: Tensor,
  rowOf: readonly number[],
  seqOf: readonly number[],
  step: number,
  V: number,
  live: readonly boolean[] | null = null,
  buffers: SamplerBuffers | null = null,
): Promise<Array<number | null>> {
  const R = rowOf.length;
  if (typeof chooser === 'function') {
    const host = await readF32(be, logits);
    return rowOf.map((row, r) =>
      live && !live[r] ? null : chooser(seqOf[r], host.subarray(row * V, (row + 1) * V), step),
    );
  }
  const owned = buffers === null;
  const buf: SamplerBuffers = buffers ?? samplerBuffers(be, R);
  try {
    if (buf.streamsOf !== seqOf) {
      be.upload(buf.rowOf, Int32Array.from(rowOf));
      be.upload(
        buf.stream,
        Int32Array.from(seqOf, (b) => chooser.streams[b]),
      );
      buf.streamsOf = seqOf;
    }
    const s = chooser.sampling;
    const words = uploadMasks(be, chooser, seqOf, live, step, V);
    const draw = () =>
      be.run('sample', {
        t: { logits, rowOf: buf.rowOf, stream: buf.stream, out: buf.out, ...(words ? { mask: words } : {}) },
        p: {
          R,
          L: logits.shape[0],
          V,
          temperature: s.temperature,
          topK: s.topK,
          topP: s.topP,
          seed: s.seed,
          counter: step,
        },
      });
    try {
      // a decode state's buffers draw at every step: only the step counter changes (Backend.repeat)
      if (!owned && be.repeat) buf.recording = be.repeat(buf.recording, draw);
      else draw();
    } finally {
      if (words) be.free(words);
    }
    const raw = await be.download(buf.out);
    if (!(raw instanceof Int32Array))
      throw new Error(`generate: sample output is ${raw.constructor.name}, expected Int32Array`);
    const f = new Float32Array(raw.buffer, raw.byteOffset, raw.length);
    return rowOf.map((_row, r) =>
      live && !live[r]
        ? null
        : chooser.next(seqOf[r], { token: raw[r * 4], logp: f[r * 4 + 1], entropy: f[r * 4 + 2] }, step),
    );
  } finally {
    if (owned) for (const t of [buf.rowOf, buf.stream, buf.out]) be.free(t);
  }
}

/** The rows' token masks [R, ceil(V / 32)] on the device, or null when no live row is masked (rows without a mask,
 *  and finished rows, allow every token). */
function uploadMasks(
  be: Backend,
  chooser: DeviceSampler,
  seqOf: readonly number[],
  live: readonly boolean[] | null,
  step: number,
  V: number,
): Tensor | null {
  if (!chooser.mask) return null;
  const W = Math.ceil(V / 32);
  const words = new Int32Array(seqOf.length * W).fill(-1);
  let any = false;
  seqOf.forEach((b, r) => {
    if (live && !live[r]) return;
    const m = chooser.mask!(b, step);
    if (m === null) return;
    if (m.length !== W)
      throw new Error(
        `generate: the token mask of sequence ${b} has ${m.length} words, expected ceil(${V} / 32) = ${W}`,
      );
    words.set(new Int32Array(m.buffer, m.byteOffset, W), r * W);
    any = true;
  });
  if (!any) return null;
  return tensorFrom(be, [seqOf.length, W], words, 'sample.mask');
}
