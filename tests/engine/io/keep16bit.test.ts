// A 16-bit checkpoint loaded with keep16Bit stays 16-bit on the host (2 bytes per parameter, every tensor in a
// buffer of its own, not a view of the shard's bytes), NaN / infinite words are refused naming file and tensor,
// and the base uploaded from it is bit for bit the base uploaded from the float32-widened weights, for every
// (checkpoint dtype, base dtype) pair each backend stores (CPU f32; WASM f32 / f16 / bf16; WebGPU on Dawn f32 /
// f16), with the same logits. The checkpoint is generated here from tiny-rema's weights with the safetensors writer
// (two shards and an index, as the hub's Qwen2.5 folders are laid out).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../helpers/wasm-build.ts';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { hostWeightsBytes, isHalfTensor, tensorFloat32, widenWeights } from '../../../src/engine/io/host-weights.ts';
import { memoryFileSource } from '../../../src/engine/io/memory-source.ts';
import { writeSafetensors, type SafetensorsDType } from '../../../src/engine/io/safetensors.ts';
import { packSequences } from '../../../src/engine/model/batch.ts';
import type { HostTensor } from '../../../src/engine/model/config.ts';
import { computeLogits } from '../../../src/engine/model/decoder.ts';
import { uploadHostTensor } from '../../../src/engine/model/host-upload.ts';
import { namedParameters, uploadParams } from '../../../src/engine/model/params.ts';
import { getTestDevice, testBackend } from '../../helpers/webgpu.ts';

const tinyDir = resolve(import.meta.dirname, '../../../public/models/tiny-rema');

const folders = new Map<string, Promise<Record<string, Uint8Array>>>();

/** tiny-rema's config and weights rewritten as `dtype` in two shards with an index (made once per dtype). */
function sixteenBitFolder(dtype: 'F16' | 'BF16'): Promise<Record<string, Uint8Array>> {
  if (!folders.has(dtype)) folders.set(dtype, writeFolder(dtype));
  return folders.get(dtype)!;
}

async function writeFolder(dtype: 'F16' | 'BF16'): Promise<Record<string, Uint8Array>> {
  const config = new Uint8Array(readFileSync(join(tinyDir, 'config.json')));
  const f32 = await loadHfCheckpoint(
    memoryFileSource('tiny', {
      'config.json': config,
      'model.safetensors': new Uint8Array(readFileSync(join(tinyDir, 'model.safetensors'))),
    }),
  );
  const names = [...f32.weights.keys()].toSorted();
  const shards = [names.slice(0, names.length >> 1), names.slice(names.length >> 1)];
  const files: Record<string, Uint8Array> = { 'config.json': config };
  const weightMap: Record<string, string> = {};
  shards.forEach((shard, i) => {
    const file = `model-0000${i + 1}-of-00002.safetensors`;
    const tensors = new Map<string, { dtype: SafetensorsDType; shape: number[]; data: Float32Array }>();
    for (const name of shard) {
      const t = f32.weights.get(name)!;
      tensors.set(name, { dtype, shape: t.shape, data: t.data });
      weightMap[name] = file;
    }
    files[file] = writeSafetensors(tensors, { format: 'pt' });
  });
  files['model.safetensors.index.json'] = new TextEncoder().encode(JSON.stringify({ weight_map: weightMap }));
  return files;
}

const backends: Array<[string, () => Promise<Backend>, Array<'f32' | 'f16' | 'bf16'>]> = [
  ['cpu', async () => new CpuBackend(), ['f32']],
  ['wasm', () => WasmBackend.create({ threads: 1 }), ['f32', 'f16', 'bf16']],
  [
    'webgpu',
    async () => {
      const dawn = await getTestDevice();
      return testBackend(dawn, { f16Storage: 'always' });
    },
    ['f32', 'f16'],
  ],
];

function bitsOf(x: Float32Array): Uint32Array {
  return new Uint32Array(x.buffer, x.byteOffset, x.length);
}

describe('loadHfCheckpoint keep16Bit', () => {
  it.each(['BF16', 'F16'] as const)(
    '%s shards: 2 bytes per parameter, each tensor owning its buffer, exactly the widened values',
    async (dtype) => {
      const files = await sixteenBitFolder(dtype);
      const half = await loadHfCheckpoint(memoryFileSource('gen', files), { keep16Bit: true });
      const wide = await loadHfCheckpoint(memoryFileSource('gen', files));
      let params = 0;
      for (const t of wide.weights.values()) params += t.data.length;
      expect(params).toBeGreaterThan(100_000);
      expect(hostWeightsBytes(half.weights)).toBe(2 * params);
      expect(hostWeightsBytes(wide.weights)).toBe(4 * params);
      expect(half.storedDtypes).toEqual(new Set([dtype]));
      const fileBuffers = new Set(Object.values(files).map((b) => b.buffer));
      for (const [name, t] of half.weights) {
        if (!isHalfTensor(t)) throw new Error(`${name} was widened`);
        expect(t.dtype).toBe(dtype === 'F16' ? 'f16' : 'bf16');
        expect(fileBuffers.has(t.bits.buffer as ArrayBuffer), name).toBe(false);
        expect(t.bits.buffer.byteLength, name).toBe(t.bits.byteLength);
        expect(bitsOf(tensorFloat32(t))).toEqual(bitsOf(wide.weights.get(name)!.data));
      }
      const some: HostTensor = half.weights.get('model.norm.weight')!;
      // @ts-expect-error a HostTensor's float32 values are reached only through tensorFloat32 (16-bit words are not floats)
      void (some.data as Float32Array);
    },
  );

  it.each([
    ['BF16', 0x7f80, 'Infinity'],
    ['BF16', 0xffc1, 'NaN'],
    ['F16', 0x7e00, 'NaN'],
    ['F16', 0xfc00, '-Infinity'],
  ] as const)('%s: a %s word (%s) is refused, naming the shard and the tensor', async (dtype, word, shown) => {
    const files = await sixteenBitFolder(dtype);
    const index = JSON.parse(new TextDecoder().decode(files['model.safetensors.index.json']));
    const file = index.weight_map['model.layers.0.mlp.up_proj.weight'] as string;
    const bytes = files[file].slice();
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
    const at = 8 + headerLength + header['model.layers.0.mlp.up_proj.weight'].data_offsets[0] + 2 * 5;
    new DataView(bytes.buffer).setUint16(at, word, true);
    const load = loadHfCheckpoint(memoryFileSource('gen', { ...files, [file]: bytes }), { keep16Bit: true });
    await expect(load).rejects.toThrow(
      `gen/${file}: tensor "model.layers.0.mlp.up_proj.weight" holds 1 non-finite value (first: ${shown} at index 5 of`,
    );
  });
});

describe.each(backends)('%s: a base uploaded from 16-bit host weights', (_name, make, baseDtypes) => {
  it.each(['BF16', 'F16'] as const)(
    '%s checkpoint: every stored base dtype bit for bit as from the widened weights, same logits',
    async (dtype) => {
      const files = await sixteenBitFolder(dtype);
      const half = await loadHfCheckpoint(memoryFileSource('gen', files), { keep16Bit: true });
      const wide = widenWeights(half.weights);
      const cfg = half.config;
      const be = await make();
      try {
        const batch = packSequences(
          [
            { tokens: [1, 5, 9, 2, 7, 3], positions: [1, 2, 3, 4, 5] },
            { tokens: [4, 4, 8, 1], positions: [1, 2, 3] },
          ],
          cfg.vocabSize,
        );
        for (const baseDtype of baseDtypes) {
          const a = uploadParams(be, cfg, half.weights, 'half', baseDtype);
          const b = uploadParams(be, cfg, wide, 'wide', baseDtype);
          const bByName = new Map(namedParameters(b));
          for (const [name, t] of namedParameters(a)) {
            expect(t.dtype).toBe(baseDtype);
            const got = (await be.download(t)) as Float32Array;
            const want = (await be.download(bByName.get(name)!)) as Float32Array;
            expect(bitsOf(got), `${baseDtype} ${name}`).toEqual(bitsOf(want));
          }
          const la = await computeLogits(be, cfg, { params: a, lora: null }, batch);
          const lb = await computeLogits(be, cfg, { params: b, lora: null }, batch);
          expect(bitsOf(la), `${baseDtype} logits`).toEqual(bitsOf(lb));
          for (const p of [a, b]) for (const [, t] of namedParameters(p)) be.free(t);
        }
      } finally {
        if (_name !== 'webgpu') be.destroy(); // the Dawn device is shared by the test files
      }
    },
  );
});

/** 1001 finite words (an odd length: WebGPU's f16 tail): bf16 ones within f16's range down to its subnormals
 *  (so bf16 -> f16 rounds), f16 ones hashed over finite patterns of either sign. */
function words(dtype: 'f16' | 'bf16'): HostTensor {
  const bits = new Uint16Array(1001);
  const wide = Float32Array.from(bits, (_, i) => Math.sin(i * 0.37) * 3 * 2 ** ((i % 23) - 14));
  const top = new Uint32Array(wide.buffer);
  for (let i = 0; i < bits.length; i++)
    bits[i] = dtype === 'bf16' ? top[i] >>> 16 : (Math.imul(i, 0x9e3779b1) >>> 16) & 0xfbff;
  return { shape: [7, 143], dtype, bits };
}

describe('uploadHostTensor widening in chunks', () => {
  it.each([
    ['wasm', 'bf16', 'f16'],
    ['wasm', 'f16', 'bf16'],
    ['wasm', 'bf16', 'f32'],
    ['webgpu', 'bf16', 'f16'],
    ['webgpu', 'f16', 'f32'],
  ] as const)(
    '%s: %s words into a %s tensor, 6 elements at a time, equal one float32 upload',
    async (kind, from, to) => {
      const be = kind === 'wasm' ? await backends[1][1]() : await backends[2][1]();
      try {
        const host = words(from);
        const chunked = be.alloc(host.shape, to, 'chunked');
        const whole = be.alloc(host.shape, to, 'whole');
        uploadHostTensor(be, chunked, host, 6);
        be.upload(whole, tensorFloat32(host));
        const got = (await be.download(chunked)) as Float32Array;
        expect(bitsOf(got)).toEqual(bitsOf((await be.download(whole)) as Float32Array));
        expect(got.some((v) => v !== 0)).toBe(true);
      } finally {
        if (kind === 'wasm') be.destroy();
      }
    },
  );
});
