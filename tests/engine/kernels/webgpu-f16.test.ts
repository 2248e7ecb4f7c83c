// The decoder with an f16 base on WebGPU, end to end: every golden fixture's weights stored as half floats
// (f16Storage: 'always', so this runs on SwiftShader, which lacks shader-f16: the kernels unpack halves with
// core WGSL) against the CPU backend running the same f16-rounded weights in f32. Both see identical weight
// values, so log-probs, entropies and LoRA gradients must agree to f32 round-off: tolerance 2e-5 of each
// tensor's max |value|. Measured: <= 2.9e-7 (log-probs, entropies) and <= 3.3e-6 (gradients); against the
// unrounded f32 weights the same comparison gives 1.4e-4..4.3e-4 and ~2e-3, so the test sees a missed or
// wrong f16 path. Only LoRA gradients are compared (an f16 base is frozen).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../../src/engine/backends/webgpu.ts';
import { decodeF16, encodeF16 } from '../../../src/engine/io/half-float.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../../../src/engine/io/memory-source.ts';
import { packSequences } from '../../../src/engine/model/batch.ts';
import { runSequences } from '../../../src/engine/model/decoder.ts';
import {
  createLoraAdapter,
  LORA_MODULE,
  namedLoraParameters,
  zerosLikeAdapter,
} from '../../../src/engine/model/lora.ts';
import { uploadParams } from '../../../src/engine/model/params.ts';
import { relMaxErr } from '../../helpers/kernel-compare.ts';
import { getTestDevice } from '../../helpers/webgpu.ts';
import { GOLDEN_ROOT as root, goldenFixtures } from '../../helpers/golden-fixtures.ts';

const fixtures = goldenFixtures('model.safetensors');

describe('f16 base weights on WebGPU vs the CPU with the same rounded weights', () => {
  it.each(fixtures)('%s: log-probs, entropies and LoRA gradients', async (name) => {
    const dir = join(root, name);
    const files: Record<string, Uint8Array> = {};
    for (const f of ['config.json', 'model.safetensors']) files[f] = new Uint8Array(readFileSync(join(dir, f)));
    const ckpt = await loadHfCheckpoint(memoryFileSource(dir, files));
    const cfg = ckpt.config;
    const rounded = new Map([...ckpt.weights].map(([k, w]) => [k, { ...w, data: decodeF16(encodeF16(w.data)) }]));
    const T = 12;
    const seqs = [0, 1].map((b) => ({
      tokens: Array.from({ length: T }, (_, i) => (i * 37 + b * 11 + 5) % cfg.vocabSize),
      positions: Array.from({ length: T - 1 }, (_, i) => i + 1),
    }));
    const coef = Float32Array.from({ length: 2 * (T - 1) }, (_, i) => Math.sin(i + 1));
    const dev = await getTestDevice();
    const gpu = WebGpuBackend.create(dev.device, { f16Storage: 'always' });
    const results = [];
    for (const [be, dtype] of [
      [new CpuBackend(), 'f32'],
      [gpu, 'f16'],
    ] as Array<[Backend, 'f32' | 'f16']>) {
      const params = uploadParams(be, cfg, rounded, 'base', dtype);
      if (dtype === 'f16') expect(params.lmHead.dtype).toBe('f16');
      const adapter = createLoraAdapter(be, cfg, {
        name: 'a',
        rank: 2,
        alpha: 4,
        targets: Object.keys(LORA_MODULE),
        seed: 3,
      });
      // lora_B starts at zero; give it values so the adapter changes the output and both factors get gradients
      for (const [key, t] of namedLoraParameters(adapter)) {
        if (key.endsWith('lora_B.weight'))
          be.upload(
            t,
            Float32Array.from({ length: t.size }, (_, i) => 0.05 * Math.cos(i)),
          );
      }
      const grads = zerosLikeAdapter(be, cfg, adapter, 'g');
      const batch = packSequences(seqs, cfg.vocabSize);
      const r = await runSequences(be, cfg, { params, lora: adapter }, batch, {
        coef,
        entropyCoef: null,
        sinks: { full: null, lora: grads },
      });
      const g = new Map<string, Float32Array>();
      for (const [key, t] of namedLoraParameters(grads)) g.set(key, (await be.download(t)) as Float32Array);
      results.push({ logprobs: r.logprobs, entropy: r.entropy, grads: g });
    }
    const [ref, test] = results;
    expect(relMaxErr(test.logprobs, ref.logprobs), 'log-probs').toBeLessThan(2e-5);
    expect(relMaxErr(test.entropy, ref.entropy), 'entropies').toBeLessThan(2e-5);
    for (const [key, want] of ref.grads) expect(relMaxErr(test.grads.get(key)!, want), key).toBeLessThan(2e-5);
    gpu.destroy();
  });
});
