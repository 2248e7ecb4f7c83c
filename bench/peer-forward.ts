// The --forward-only mode of bench/peer.ts: every runtime's forward (onnxruntime-node and our backends) timed in
// turn, round after round, instead of one runtime's repeats after the other's. On a shared machine the load
// changes from minute to minute; taken in turn, every runtime's median comes from the same stretch of time, so
// their ratio does not depend on which one happened to run during a busier minute.
import { median } from './browser/measure.ts';
import type { RuntimeSpeeds } from './browser/measure.ts';

/** Rounds of the forward-only mode (each runtime once per round, after one warm-up round). */
export const FORWARD_ONLY_REPEATS = 5;

export interface ForwardRuntime {
  runtime: string;
  /** one forward over the sequences; returns its seconds (by the clock measure.ts uses) */
  forward(seqs: number[][]): Promise<number>;
}

/** Median forward tok/s of each runtime over `rounds` rounds taken in turn; the other figures stay 0. */
export async function interleavedForward(
  runtimes: ForwardRuntime[],
  seqs: number[][],
  rounds: number,
): Promise<RuntimeSpeeds[]> {
  const seconds = runtimes.map(() => [] as number[]);
  for (const r of runtimes) await r.forward(seqs); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < runtimes.length; i++) seconds[i].push(await runtimes[i].forward(seqs));
  }
  const tokens = seqs.length * seqs[0].length;
  return runtimes.map((r, i) => {
    const tokS = tokens / median(seconds[i]);
    return {
      runtime: r.runtime,
      forward_tok_s: tokS >= 100 ? Math.round(tokS) : +tokS.toFixed(2),
      prefill_tok_s_B1: 0,
      prefill_tok_s_G: 0,
      decode_tok_s_G1: 0,
      decode_tok_s_G: 0,
    };
  });
}
