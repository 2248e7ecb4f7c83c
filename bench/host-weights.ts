// Host memory of loading a bf16 checkpoint before it reaches the device (loadHfCheckpoint, then uploadParams), for
// the Qwen2.5-0.5B / 1.5B-Instruct shapes: computed from the shapes (both are one bf16 model.safetensors on the
// hub), and measured on a generated bf16 checkpoint of the 0.5B shape cut to 2 layers (ArrayBuffer bytes held
// after the load, after a gc). `node --expose-gc --import tsx bench/host-weights.ts` (not part of `npm run bench`).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadHfCheckpoint } from '../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../src/engine/io/memory-source.ts';
import { writeSafetensors, type WritableTensor } from '../src/engine/io/safetensors.ts';
import type { ModelConfig } from '../src/engine/model/config.ts';
import { expectedParameterShapes } from '../src/engine/model/params.ts';
import { QWEN25_05B, QWEN25_15B, randomWeights } from './gpu-shapes.ts';

const MB = (n: number) => `${(n / 1e6).toFixed(0)} MB`;

function parameters(cfg: ModelConfig): number {
  let n = 0;
  for (const shape of expectedParameterShapes(cfg).values()) n += shape.reduce((a, b) => a * b, 1);
  return n;
}

if (process.argv[2] === undefined) {
  console.log(
    '| model | parameters | bf16 file | held after load: f32 -> 16-bit | peak while loading: f32 -> 16-bit |',
  );
  console.log('|---|---|---|---|---|');
  for (const [name, cfg] of [
    ['Qwen2.5-0.5B-Instruct', QWEN25_05B],
    ['Qwen2.5-1.5B-Instruct', QWEN25_15B],
  ] as const) {
    const p = parameters(cfg);
    // one shard: its bytes (2 per parameter) are alive while its tensors are decoded, then dropped
    console.log(
      `| ${name} | ${p.toLocaleString('en-US')} | ${MB(2 * p)} | ${MB(4 * p)} -> ${MB(2 * p)} | ${MB(6 * p)} -> ${MB(4 * p)} |`,
    );
  }
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const cut: ModelConfig = { ...QWEN25_05B, numLayers: 2 };
const tensors = new Map<string, WritableTensor>();
for (const [n, t] of randomWeights(cut, 3)) tensors.set(n, { dtype: 'BF16', shape: t.shape, data: t.data });
const config = new TextEncoder().encode(
  JSON.stringify({
    architectures: ['Qwen2ForCausalLM'],
    model_type: 'qwen2',
    hidden_size: cut.hiddenSize,
    intermediate_size: cut.intermediateSize,
    num_hidden_layers: cut.numLayers,
    num_attention_heads: cut.numHeads,
    num_key_value_heads: cut.numKvHeads,
    vocab_size: cut.vocabSize,
    rms_norm_eps: cut.rmsNormEps,
    rope_theta: cut.ropeTheta,
    max_position_embeddings: cut.maxPositionEmbeddings,
    tie_word_embeddings: true,
  }),
);
const files = { 'config.json': config, 'model.safetensors': writeSafetensors(tensors) };
tensors.clear();
const p = parameters(cut);
const mode = process.argv[2];
if (mode === undefined) {
  // each measurement in a fresh process, so nothing from the other is still waiting for the collector
  for (const keep16Bit of ['f32', '16bit']) {
    const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), keep16Bit], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(r.stderr);
    console.log(r.stdout.trim().split('\n').at(-1));
  }
} else {
  gc();
  const before = process.memoryUsage().arrayBuffers;
  const ckpt = await loadHfCheckpoint(memoryFileSource('gen', files), { keep16Bit: mode === '16bit' });
  gc();
  const held = process.memoryUsage().arrayBuffers - before;
  console.log(
    `measured, 0.5B shape with 2 layers (${p.toLocaleString('en-US')} parameters), ${mode === '16bit' ? 'keep16Bit' : 'float32'}: ` +
      `${MB(held)} held after the load (${(held / p).toFixed(2)} bytes per parameter; ${ckpt.weights.size} tensors)`,
  );
}
