// Keys and values kept across decode calls (model/kv-keep.ts) and the prefill behind them (model/prefill-behind.ts):
// a call keeps each sequence's prompt and fed-back tokens (also of sequences dropped from the caches mid-decode);
// a later call whose prompts start with them runs only the rest through the layers and sees the logits, at every
// step, of a call that prefills its prompts whole (CPU, WASM and WebGPU's f32 base; one pass and several; LoRA
// unfused and merged; with prompts nothing was kept of among them).
import { describe, expect, it } from 'vitest';
import '../../helpers/wasm-build.ts';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import type { ActiveWeights } from '../../../src/engine/model/decoder.ts';
import { decodeBatch } from '../../../src/engine/model/generate.ts';
import type { KeptKv } from '../../../src/engine/model/kv-keep.ts';
import { behindPasses, behindRows } from '../../../src/engine/model/prefill-behind.ts';
import { relMaxErr } from '../../helpers/kernel-compare.ts';
import { loraWeightsOn } from '../../helpers/engine/lora-weights.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';
import { baseBackend, getTestDevice } from '../../helpers/webgpu.ts';

const cfg = tinyConfig({ architecture: 'qwen2', attentionBias: true, vocabSize: 48 });
const weights = randomWeights(cfg, 5);
const M = 6; // new tokens per call
// the first call: prompt 3 repeats prompt 0; what each sequence draws (it stops after its list; the last two run
// to M, so M - 1 of their tokens are fed back); sequences 1, 2 and 3 stop early and are dropped mid-decode
const first = [
  [3, 5, 7, 9],
  [2, 4],
  [8, 1, 6, 30, 31, 32, 33],
  [3, 5, 7, 9],
  [12, 13, 14],
  [40, 41],
];
const drawn = [[10, 11, 12, 13, 14, 15], [20], [21, 22], [], [44, 45, 46, 47, 5, 6], [9, 8, 7, 6, 5, 4, 3]];

function fedBack(b: number): number[] {
  return drawn[b].slice(0, M - 1);
}

/** The second call: each first-call sequence, what it drew, then a few tokens more; and two new prompts (the short
 *  one shorter than the pass's longest rest: left-padded). */
const second = [
  ...first.map((p, b) => [...p, ...fedBack(b), ...[17, 18, 19].slice(0, 1 + (b % 3))]),
  [25, 26, 27, 28, 29, 30, 31, 32, 33, 34],
  [36, 37],
];

const backends: Array<[string, () => Promise<Backend>, number]> = [
  ['cpu', async () => new CpuBackend(), 2e-6],
  ['wasm', () => WasmBackend.create(), 2e-6],
  ['webgpu (f32 base)', async () => baseBackend(await getTestDevice()), 2e-5],
];

function weightsOn(be: Backend, fused: boolean): ActiveWeights {
  return loraWeightsOn(be, cfg, weights, fused, ['q', 'k', 'v', 'o', 'up']);
}

/** Every logits row the chooser sees, and the store when kept; `script` gives each sequence's drawn tokens. */
async function run(
  be: Backend,
  w: ActiveWeights,
  prompts: number[][],
  script: (b: number, step: number) => number | null,
  opts: { keep?: boolean; reuse?: KeptKv; prefillTokens?: number },
): Promise<{ rows: Float32Array[]; kept: KeptKv | null }> {
  const rows: Float32Array[] = [];
  const kept = await decodeBatch(
    be,
    cfg,
    w,
    prompts,
    (b, logits, step) => {
      rows[step * prompts.length + b] = Float32Array.from(logits);
      return script(b, step);
    },
    { maxNewTokens: M, ...opts },
  );
  return { rows, kept };
}

const firstScript = (b: number, step: number) => drawn[b][step] ?? null;
const secondScript = (b: number, step: number) => (step < 3 + (b % 4) ? (b * 11 + step * 7) % cfg.vocabSize : null);

describe('kept keys and values', () => {
  it('passes of the prefill behind them follow the row budget; it is taken where it pads fewer rows', () => {
    expect(behindPasses([1, 2, 2, 5], 4)).toEqual([
      [0, 2],
      [2, 3],
      [3, 4],
    ]);
    expect(behindPasses([3, 3, 3], 100)).toEqual([[0, 3]]);
    // 3 prompts of 20 tokens, 18 kept of each: 3 x 2 rows behind against 3 x 20 whole
    expect(behindRows([20, 20, 20], [18, 18, 18], 1000)).toEqual({ behind: 6, whole: 60 });
    // one prompt kept of nothing pads every row behind to its length
    expect(behindRows([20, 20, 20], [18, 18, 0], 1000)).toEqual({ behind: 60, whole: 60 });
  });

  for (const [name, make, tol] of backends) {
    for (const fused of [false, true]) {
      it(`${name}, ${fused ? 'merged LoRA' : 'unfused LoRA'}: a call behind kept rows sees a whole prefill's logits at every step`, async () => {
        const be = await make();
        const w = weightsOn(be, fused);
        const live = be.ledger().liveTensors;
        const { kept } = await run(be, w, first, firstScript, { keep: true });
        expect(kept).not.toBeNull();
        // every sequence is kept with what it fed back, also those dropped from the caches mid-decode
        first.forEach((p, b) => {
          const next = [...p, ...fedBack(b), 47];
          expect(kept!.match(next).length, `sequence ${b}`).toBe(p.length + fedBack(b).length);
        });
        // the prefill behind them runs passes of several rows against a cache (past > 0)
        const passesBehind: number[] = [];
        const runKernel = be.run.bind(be);
        be.run = ((kernel: string, args: { p: { T: number; past: number } }) => {
          if (kernel === 'attention' && args.p.T > 1 && args.p.past > 0) passesBehind.push(args.p.T);
          return runKernel(kernel as never, args as never);
        }) as typeof be.run;
        const whole = await run(be, w, second, secondScript, {});
        expect(passesBehind).toEqual([]);
        for (const prefillTokens of [undefined, 9]) {
          passesBehind.length = 0;
          const reused = await run(be, w, second, secondScript, {
            reuse: kept!,
            ...(prefillTokens ? { prefillTokens } : {}),
          });
          expect(passesBehind.length, `passes with budget ${prefillTokens}`).toBeGreaterThan(prefillTokens ? 1 : 0);
          expect(reused.rows.length).toBe(whole.rows.length);
          whole.rows.forEach((r, i) => {
            if (!r) return;
            expect(relMaxErr(reused.rows[i], r), `logits row ${i}, budget ${prefillTokens}`).toBeLessThan(tol);
          });
        }

        expect(be.ledger().liveTensors - live).toBe(0);
        be.destroy();
      });
    }
  }
});
