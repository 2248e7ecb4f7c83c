// Host memory is let go as soon as it is no longer needed, checked with the garbage collector (WeakRefs and V8's
// gc): while loadHfCheckpoint reads a checkpoint's second shard, the first shard's file bytes are collectable (only
// the tensors copied out of them stay), and an EnginePolicy keeps no reference to the host weights it uploaded
// (the CLI drops them after building the policy; a 1.5B model's weights are 3-6 GB).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { writeSafetensors } from '../../src/engine/io/safetensors.ts';
import { createEnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import type { FileSource } from '../../src/util/file-source.ts';
import { constantAdamW } from '../helpers/adamw.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Lets the current job end (WeakRef targets stay alive until it does), then collects. */
async function collect(): Promise<void> {
  await new Promise((r) => setTimeout(r, 0));
  gc();
}

const tinyDir = resolve(import.meta.dirname, '../../public/models/tiny-rema');
const configBytes = new Uint8Array(readFileSync(join(tinyDir, 'config.json')));

/** tiny-rema as two BF16 shards, each read() handing out a fresh copy the test can watch. */
async function shardedSource(onRead: (path: string, bytes: Uint8Array) => Promise<void>): Promise<FileSource> {
  const f32 = await loadHfCheckpoint({
    name: 'tiny',
    read: async (p) =>
      p === 'config.json' || p === 'model.safetensors' ? new Uint8Array(readFileSync(join(tinyDir, p))) : null,
  });
  const names = [...f32.weights.keys()].toSorted();
  const files = new Map<string, Uint8Array>([['config.json', configBytes]]);
  const weightMap: Record<string, string> = {};
  [names.slice(0, names.length >> 1), names.slice(names.length >> 1)].forEach((shard, i) => {
    const file = `model-0000${i + 1}-of-00002.safetensors`;
    const tensors = new Map(shard.map((n) => [n, { dtype: 'BF16' as const, ...f32.weights.get(n)! }]));
    for (const n of shard) weightMap[n] = file;
    files.set(file, writeSafetensors(tensors));
  });
  files.set('model.safetensors.index.json', new TextEncoder().encode(JSON.stringify({ weight_map: weightMap })));
  return {
    name: 'gen',
    async read(path) {
      const stored = files.get(path);
      if (stored === undefined) return null;
      const bytes = stored.slice();
      await onRead(path, bytes);
      return bytes;
    },
  };
}

describe('host memory let go', () => {
  it.each([false, true])('keep16Bit %s: the first shard is collectable while the second is read', async (keep16Bit) => {
    let first: WeakRef<Uint8Array> | null = null;
    let firstAlive: boolean | null = null;
    const source = await shardedSource(async (path, bytes) => {
      if (path === 'model-00001-of-00002.safetensors') first = new WeakRef(bytes);
      if (path === 'model-00002-of-00002.safetensors') {
        await collect();
        firstAlive = first!.deref() !== undefined;
      }
    });
    const ckpt = await loadHfCheckpoint(source, { keep16Bit });
    expect(ckpt.weights.size).toBeGreaterThan(10);
    expect(first).not.toBeNull();
    expect(firstAlive).toBe(false);
  });

  it('an EnginePolicy keeps no reference to the host weights it uploaded', async () => {
    const source = await shardedSource(async () => {});
    const ckpt = await loadHfCheckpoint(source, { keep16Bit: true });
    const weights = new WeakRef(ckpt.weights);
    const policy = createEnginePolicy({
      backend: new CpuBackend(),
      config: ckpt.config,
      weights: ckpt.weights,
      decoder: { decode: (ids: number[]) => ids.join(' ') },
      training: { mode: 'lora', adapters: ['a'], rank: 2, alpha: 4, targets: ['q'] },
      optimizer: constantAdamW(1e-3),
      seed: 1,
    });
    (ckpt as { weights: unknown }).weights = null;
    await collect();
    expect(weights.deref()).toBeUndefined();
    expect(policy.baseDtype).toBe('f32');
  });
});
