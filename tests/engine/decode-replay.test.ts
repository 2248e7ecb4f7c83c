// Decode record/replay on WebGPU (Backend.repeat, backends/webgpu/recording.ts): the first decode step of a
// DecodeState records its dispatches and later steps re-issue them, rewriting only the uniforms that move with the
// step (the cache row written, the keys attended over). On the embedded tiny model, through the real engine on
// Dawn: replayed generation equals plain generation bit for bit (tokens and log-probs) across cache compaction,
// changes of the attention's key split, the merged LoRA copy refreshed by an optimiser step, and both the merged
// and the unmerged layer; a replayed step encodes nothing through the kernels' host code and builds no program key,
// with the same GPU calls as a plain step (counted by wrapping Dawn's objects, bench/gpu-counter.ts).
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { countGpuCalls, diffCounts, type GpuCounts } from '../../bench/gpu-counter.ts';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import type { ReplayStats } from '../../src/engine/backends/webgpu/recording.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { EnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import type { GenerateRequest, Generation, SamplingParams } from '../../src/engine/policy/policy.ts';
import { getTestDevice, testBackend, type TestDevice } from '../helpers/webgpu.ts';
import { constantAdamW } from '../helpers/adamw.ts';

let checkpoint: HfCheckpoint; // tiny-rema (Llama layout)
let qwen: HfCheckpoint; // the Qwen2.5 layout fixture: q/k/v biases, tied embeddings
let dawn: TestDevice;
const load = (dir: string) => loadHfCheckpoint(directoryFileSource(resolve(import.meta.dirname, dir), dir));
beforeAll(async () => {
  [checkpoint, qwen] = await Promise.all([
    load('../../public/models/tiny-rema'),
    load('../fixtures/hf/tiny-qwen2.5-instruct'),
  ]);
  dawn = await getTestDevice();
});

function policy(gpu: WebGpuBackend, merge: boolean, model = checkpoint): EnginePolicy {
  return new EnginePolicy({
    backend: gpu,
    config: model.config,
    weights: model.weights,
    decoder: { decode: (ids) => ids.join(' ') },
    training: { mode: 'lora', adapters: ['a'], rank: 4, alpha: 8, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] },
    optimizer: constantAdamW(5e-2),
    seed: 3,
    baseDtype: 'f32',
    mergeLoraForInference: merge,
  });
}

const sampling: SamplingParams = { temperature: 1, topP: 0.95, topK: 0, seed: 11 };
// rows finish after 6 and 9 new tokens: once half of the 4 rows are done the caches are compacted (new caches, a
// new decode state) while the other two decode on
const requests: GenerateRequest[] = [6, 9, 16, 16].map((maxNewTokens, i) => ({
  prompt: [1, 40 + i, 77, 12 + 3 * i, 9].slice(0, 3 + (i % 3)),
  adapter: 'a',
  maxNewTokens,
  stopStrings: [],
  stopTokenIds: [],
}));

/** Generation, a gradient step and generation again; every decode step's replay figures. */
async function scenario(
  gpu: WebGpuBackend,
  merge: boolean,
  model: HfCheckpoint,
): Promise<{ out: Generation[][]; encodedPerStep: number[] }> {
  const p = policy(gpu, merge, model);
  const out: Generation[][] = [];
  const encodedPerStep: number[] = [];
  let last = gpu.replayStats().encoded;
  const onStep = () => {
    const now = gpu.replayStats().encoded;
    encodedPerStep.push(now - last);
    last = now;
  };
  out.push(await p.generate(requests, sampling, onStep));
  p.zeroGrad('a');
  await p.accumulateGradients([
    { tokens: [1, 40, 77, 5, 8, 13], positions: [2, 3, 4, 5], adapter: 'a', coef: new Float32Array(4).fill(-1) },
  ]);
  await p.optimizerStep('a');
  out.push(await p.generate(requests, { ...sampling, seed: 12 }, onStep));
  p.dispose();
  return { out, encodedPerStep };
}

/** Per-step increments of a running total sampled after each step, from decode step 2 on. */
const laterSteps = (xs: number[]) => xs.slice(2).map((x, i) => x - xs[i + 1]);

describe('decode record/replay on WebGPU', () => {
  const cases = [
    { merge: true, flash: false, qwenLayout: false },
    { merge: false, flash: false, qwenLayout: false },
    { merge: true, flash: true, qwenLayout: false },
    { merge: true, flash: true, qwenLayout: true },
  ];
  for (const { merge, flash, qwenLayout } of cases) {
    const what =
      `${qwenLayout ? 'Qwen2.5 layout' : 'tiny-rema'}, ${merge ? 'merged' : 'unmerged'} LoRA, ` +
      (flash ? 'flash-decoding' : 'key splits changing every 8 keys');
    it(`replayed decode equals plain decode bit for bit (${what}): compaction, an optimiser step`, async () => {
      // one backend (pipelines compiled once), replay switched off for the plain run
      const gpu = testBackend(dawn);
      gpu.tuning.attentionSplitKeys = 8; // the split attention's key split changes every 8 keys
      gpu.tuning.flashDecode = flash; // (hardware adapters' default; one split below 256 keys)
      const runs: Array<{ out: Generation[][]; encodedPerStep: number[] }> = [];
      const stats: ReplayStats[] = [];
      for (const replay of [false, true]) {
        gpu.replayEnabled = replay;
        const before = gpu.replayStats();
        runs.push(await scenario(gpu, merge, qwenLayout ? qwen : checkpoint));
        const after = gpu.replayStats();
        stats.push({
          replayed: after.replayed - before.replayed,
          patched: after.patched - before.patched,
          encoded: after.encoded - before.encoded,
        });
      }
      gpu.destroy();
      const [plain, replayed] = runs;
      expect(replayed.out.flat().map((g) => g.tokens)).toEqual(plain.out.flat().map((g) => g.tokens));
      expect(replayed.out.flat().map((g) => g.logprobs)).toEqual(plain.out.flat().map((g) => g.logprobs));
      expect(plain.out[0][3].tokens.length).toBe(16);
      expect(stats[0]).toEqual({ replayed: 0, patched: 0, encoded: 0 });
      expect(stats[1].replayed).toBeGreaterThan(stats[1].encoded);
      expect(stats[1].patched).toBeGreaterThan(0);
      // re-encoded: the first step of each decode state (2 per generation: before and after compaction) in full,
      // and the attention runs whose key split changed; every other step replays everything
      const steady = replayed.encodedPerStep.filter((n) => n === 0).length;
      expect(steady).toBeGreaterThan(replayed.encodedPerStep.length / 2);
    });
  }

  it('a replayed step makes the same GPU calls as a plain one, creates no bind group and builds no program key', async () => {
    const counted = countGpuCalls(dawn.device);
    const perStep: Array<{ gpu: GpuCounts[]; keys: number[]; encoded: number[] }> = [];
    for (const replay of [false, true]) {
      const gpu = testBackend(dawn, { replay });
      const p = policy(gpu, true);
      const one: GenerateRequest = { ...requests[2], maxNewTokens: 8 };
      await p.generate([one, one], sampling); // warm-up: pipelines, bind groups
      const snaps: GpuCounts[] = [];
      const keys: number[] = [];
      const encoded: number[] = [];
      const stringify = vi.spyOn(JSON, 'stringify'); // program variants are looked up by a JSON key
      await p.generate([one, one], sampling, () => {
        snaps.push(counted.snapshot());
        keys.push(stringify.mock.calls.length);
        encoded.push(gpu.replayStats().encoded);
      });
      stringify.mockRestore();
      perStep.push({
        gpu: snaps.slice(2).map((s, i) => diffCounts(snaps[i + 1], s)),
        keys: laterSteps(keys),
        encoded: laterSteps(encoded),
      });
      p.dispose();
      gpu.destroy();
    }
    const [plain, replayed] = perStep;
    expect(replayed.gpu.length).toBe(6);
    expect(replayed.gpu).toEqual(plain.gpu); // dispatches, submits, readbacks, uploads, ... all equal
    for (const d of replayed.gpu) expect(d.bindGroupsCreated).toBe(0);
    expect(replayed.encoded).toEqual([0, 0, 0, 0, 0, 0]);
    // plain: a key per dispatch (3 layers x 9 + embedding, norm, LM head, sampler); replayed: none
    for (const n of plain.keys) expect(n).toBeGreaterThanOrEqual(3 * 9 + 4);
    expect(replayed.keys).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('recordings and the memory they use', () => {
  it('keeps recorded scratch out of the pool (a new tensor never shares it) and gives it back on dispose', async () => {
    const gpu = testBackend(dawn, { flashDecode: false }); // the key-split attention, whose partials are scratch
    gpu.tuning.attentionSplitKeys = 4; // 21 keys in 6 splits: partials of 2 queries x 6 x (8 + 2) floats = 480 bytes
    const [B, S, H, Hkv, Dh] = [1, 32, 2, 1, 8];
    const filled = (shape: number[], dtype: 'f32' | 'i32' = 'f32') => {
      const t = gpu.alloc(shape, dtype);
      const n = shape.reduce((a, b) => a * b, 1);
      gpu.upload(t, dtype === 'i32' ? new Int32Array(n) : Float32Array.from({ length: n }, (_, i) => Math.sin(i)));
      return t;
    };
    const [q, k, v, keyStart] = [
      filled([B, 1, H, Dh]),
      filled([B, S, Hkv, Dh]),
      filled([B, S, Hkv, Dh]),
      filled([B], 'i32'),
    ];
    const [o, lse] = [gpu.alloc([B, 1, H, Dh]), gpu.alloc([B, H, 1])];
    const body = () =>
      gpu.run('attention', { t: { q, k, v, keyStart, o, lse }, p: { B, T: 1, S, past: 20, H, Hkv, Dh } });
    const live = gpu.ledger().liveBytes;
    let rec = gpu.repeat(null, body);
    expect(gpu.ledger().liveBytes - live).toBe(512); // the partials, rounded to 256 bytes
    // a tensor of the scratch's size: without the pin it would get that buffer from the pool, and the replayed
    // attention would overwrite it
    const other = gpu.alloc([128]);
    gpu.upload(other, new Float32Array(128).fill(7));
    rec = gpu.repeat(rec, body);
    expect(gpu.replayStats().replayed).toBe(2);
    expect(Array.from((await gpu.download(other)) as Float32Array)).toEqual(Array.from({ length: 128 }, () => 7));
    rec.dispose();
    expect(gpu.ledger().liveBytes - live).toBe(512); // only `other` now
    gpu.destroy();
  });

  it('re-encodes instead of replaying when the kernel variants are switched (tuning)', async () => {
    const gpu = testBackend(dawn);
    const [B, S, H, Hkv, Dh] = [1, 16, 2, 1, 8];
    const t = {
      q: gpu.alloc([B, 1, H, Dh]),
      k: gpu.alloc([B, S, Hkv, Dh]),
      v: gpu.alloc([B, S, Hkv, Dh]),
      keyStart: gpu.alloc([B], 'i32'),
      o: gpu.alloc([B, 1, H, Dh]),
      lse: gpu.alloc([B, H, 1]),
    };
    const body = () => gpu.run('attention', { t, p: { B, T: 1, S, past: 5, H, Hkv, Dh } });
    const flash = () => gpu.dispatchesByProgram()['attentionDecode:8:2:direct'] ?? 0;
    gpu.tuning.flashDecode = false;
    let rec = gpu.repeat(null, body);
    rec = gpu.repeat(rec, body);
    expect(flash()).toBe(0);
    gpu.tuning.flashDecode = true;
    rec = gpu.repeat(rec, body);
    rec = gpu.repeat(rec, body);
    expect(flash()).toBe(2);
    expect(gpu.replayStats()).toMatchObject({ replayed: 2, encoded: 2 });
    rec.dispose();
    gpu.destroy();
  });

  it('drops a recording when a tensor it uses is freed: running the body with that tensor again fails as a plain run does', async () => {
    const gpu = testBackend(dawn);
    const x = gpu.alloc([64]);
    const y = gpu.alloc([64]);
    const body = () => gpu.run('axpby', { t: { x, y }, p: { n: 64, a: 1, b: 1 } });
    let rec = gpu.repeat(null, body);
    rec = gpu.repeat(rec, body);
    expect(gpu.replayStats()).toMatchObject({ replayed: 1, encoded: 1 });
    gpu.free(x);
    gpu.alloc([64]); // x's buffer, from the pool
    expect(() => gpu.repeat(rec, body)).toThrow(/tensor 'x' .* is not live/);
    gpu.destroy();
  });
});
