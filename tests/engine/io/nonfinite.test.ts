// NaN / infinite weights are refused at load time, naming the file and the tensor: a model folder the test writes
// itself (F32, BF16 and a sharded F16 checkpoint), a PEFT adapter, a full fine-tuning checkpoint and an optimiser
// state, each loaded through the engine's real readers. The same files without the bad value load.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { createEnginePolicy } from '../../../src/engine/policy/engine-policy.ts';
import { firstNonFinite } from '../../../src/engine/io/finite.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { ADAPTER_WEIGHTS_FILE, parsePeftAdapter } from '../../../src/engine/io/peft.ts';
import {
  parseSafetensors,
  writeSafetensors,
  type SafetensorsDType,
  type WritableTensor,
} from '../../../src/engine/io/safetensors.ts';
import type { ModelConfig, ModelWeights } from '../../../src/engine/model/config.ts';
import { llamaConfigJson, randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';
import { constantAdamW } from '../../helpers/adamw.ts';

const cfg = tinyConfig();
const configJson = JSON.stringify(llamaConfigJson(cfg));

function tensors(weights: ModelWeights, dtype: SafetensorsDType, names?: string[]): Map<string, WritableTensor> {
  return new Map(
    [...weights]
      .filter(([n]) => !names || names.includes(n))
      .map(([n, t]) => [n, { dtype, shape: t.shape, data: t.data }]),
  );
}

const shardName = (i: number) => `model-0000${i + 1}-of-00002.safetensors`;

/** A model folder on disk: one file, or two shards with an index. */
function writeModel(weights: ModelWeights, dtype: SafetensorsDType, sharded = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'rema-nonfinite-'));
  writeFileSync(join(dir, 'config.json'), configJson);
  if (!sharded) {
    writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(tensors(weights, dtype)));
    return dir;
  }
  const names = [...weights.keys()];
  const half = [names.slice(0, names.length / 2), names.slice(names.length / 2)];
  half.forEach((part, i) => writeFileSync(join(dir, shardName(i)), writeSafetensors(tensors(weights, dtype, part))));
  const weightMap = Object.fromEntries(half.flatMap((part, i) => part.map((n) => [n, shardName(i)])));
  writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: weightMap }));
  return dir;
}

function withValue(weights: ModelWeights, name: string, index: number, value: number): ModelWeights {
  const out: ModelWeights = new Map([...weights].map(([n, t]) => [n, { shape: t.shape, data: t.data.slice() }]));
  out.get(name)!.data[index] = value;
  return out;
}

function policy(config: ModelConfig, mode: 'lora' | 'full') {
  return createEnginePolicy({
    backend: new CpuBackend(),
    config,
    weights: randomWeights(config, 3),
    decoder: { decode: (ids: readonly number[]) => ids.join(' ') },
    training:
      mode === 'full'
        ? { mode: 'full', adapters: ['full'] }
        : { mode: 'lora', adapters: ['shared'], rank: 2, alpha: 4, targets: ['q', 'v'] },
    optimizer: constantAdamW(1e-3),
    seed: 0,
  });
}

describe('non-finite weights are refused', () => {
  const weights = randomWeights(cfg, 1);

  it('a model folder with one NaN (F32, F64), +Inf (BF16) or -Inf (F16, sharded) names the file and the tensor', async () => {
    const good = writeModel(weights, 'F32');
    await expect(loadHfCheckpoint(directoryFileSource(good))).resolves.toBeDefined();

    const nan = writeModel(withValue(weights, 'model.layers.1.mlp.down_proj.weight', 17, Number.NaN), 'F32');
    await expect(loadHfCheckpoint(directoryFileSource(nan))).rejects.toThrow(
      `${nan}/model.safetensors: tensor "model.layers.1.mlp.down_proj.weight" holds 1 non-finite value (first: NaN at index 17 of 384)`,
    );
    const inf = writeModel(withValue(weights, 'model.norm.weight', 3, Number.POSITIVE_INFINITY), 'BF16');
    await expect(loadHfCheckpoint(directoryFileSource(inf))).rejects.toThrow(
      /model\.safetensors: tensor "model\.norm\.weight" holds 1 non-finite value \(first: Infinity at index 3 of 16\)/,
    );
    const f64 = writeModel(withValue(weights, 'model.embed_tokens.weight', 39, Number.NaN), 'F64');
    await expect(loadHfCheckpoint(directoryFileSource(f64))).rejects.toThrow(
      /tensor "model\.embed_tokens\.weight" holds 1 non-finite value \(first: NaN at index 39 of 640\)/,
    );
    const shardedBad = withValue(
      withValue(weights, 'lm_head.weight', 0, Number.NEGATIVE_INFINITY),
      'lm_head.weight',
      5,
      Number.NaN,
    );
    const sharded = writeModel(shardedBad, 'F16', true);
    await expect(loadHfCheckpoint(directoryFileSource(sharded))).rejects.toThrow(
      /model-00002-of-00002\.safetensors: tensor "lm_head\.weight" holds 2 non-finite values \(first: -Infinity at index 0 of 640\); refusing to load NaN \/ infinite weights/,
    );
  });

  it('a PEFT adapter with a NaN names adapter_model.safetensors and the LoRA tensor', async () => {
    const p = policy(cfg, 'lora');
    const files = await p.saveAdapter('shared');
    await p.loadAdapter('shared', files); // the saved adapter loads back
    const parsed = parseSafetensors(files[ADAPTER_WEIGHTS_FILE], ADAPTER_WEIGHTS_FILE);
    const name = 'base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight';
    const bad = new Map(
      [...parsed.tensors].map(([n, t]) => [
        n,
        { dtype: t.dtype, shape: t.shape, data: Float32Array.from(t.data as Float32Array) },
      ]),
    );
    bad.get(name)!.data[2] = Number.NaN;
    const badFiles = { ...files, [ADAPTER_WEIGHTS_FILE]: writeSafetensors(bad) };
    expect(() => parsePeftAdapter(badFiles, cfg)).toThrow(
      `${ADAPTER_WEIGHTS_FILE}: tensor "${name}" holds 1 non-finite value (first: NaN at index 2`,
    );
    await expect(p.loadAdapter('shared', badFiles)).rejects.toThrow(`tensor "${name}" holds 1 non-finite value`);
  });

  it('a full fine-tuning checkpoint and an optimiser state with Inf are refused, naming file and tensor', async () => {
    const p = policy(cfg, 'full');
    const files = await p.saveAdapter('full');
    const [file] = Object.keys(files);
    const full = parseSafetensors(files[file], file);
    const bad = new Map(
      [...full.tensors].map(([n, t]) => [
        n,
        { dtype: t.dtype, shape: t.shape, data: Float32Array.from(t.data as Float32Array) },
      ]),
    );
    bad.get('model.layers.0.self_attn.o_proj.weight')!.data[7] = Number.POSITIVE_INFINITY;
    await expect(p.loadAdapter('full', { [file]: writeSafetensors(bad) })).rejects.toThrow(
      `${file}: tensor "model.layers.0.self_attn.o_proj.weight" holds 1 non-finite value (first: Infinity at index 7`,
    );

    const state = await p.saveOptimizerState('full');
    await p.loadOptimizerState('full', state);
    const moments = parseSafetensors(state, 'optimizer.safetensors');
    const key = 'v.model.norm.weight';
    const badMoments = new Map(
      [...moments.tensors].map(([n, t]) => [
        n,
        { dtype: t.dtype, shape: t.shape, data: Float32Array.from(t.data as Float32Array) },
      ]),
    );
    badMoments.get(key)!.data[0] = Number.NaN;
    await expect(p.loadOptimizerState('full', writeSafetensors(badMoments, moments.metadata))).rejects.toThrow(
      `tensor "${key}" holds 1 non-finite value (first: NaN at index 0`,
    );
  });

  it('firstNonFinite finds the first NaN or infinity and passes every finite float, including the extremes', () => {
    const xs = Float32Array.from([0, -0, 3.4028234663852886e38, -3.4028234663852886e38, 1e-45, -1e-45, 1]);
    expect(firstNonFinite(xs)).toBe(-1);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const ys = xs.slice();
      ys[4] = bad;
      expect(firstNonFinite(ys)).toBe(4);
      expect(firstNonFinite(Float64Array.from(ys))).toBe(4);
    }
  });
});
