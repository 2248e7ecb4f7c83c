// One golden fixture folder read through a FileSource (the page fetches it, the CLI reads the disk): the model
// (config.json, model.safetensors) and the float64 PyTorch outputs and gradients it must reproduce
// (golden.safetensors, written by scripts/golden/make_golden.py).
import type { FileSource } from '../../util/file-source.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../io/hf-model.ts';
import { parseSafetensors, type SafetensorsTensor } from '../io/safetensors.ts';

/** The fixture folders shipped with the page and the CLI (public/gpu-check/): the two smallest of
 *  tests/fixtures/golden, a Llama (head_dim != hidden / heads, 4 query heads per KV head, untied head) and a Qwen2
 *  (biases, tied head, 2 query heads per KV head). */
export const SHIPPED_GPU_CHECK_FIXTURES = ['llama-gqa4-headdim', 'qwen2-tied-gqa2'] as const;

export interface GoldenFixture {
  name: string;
  ckpt: HfCheckpoint;
  golden: Map<string, SafetensorsTensor>;
  /** token ids per sequence, each T long */
  ids: number[][];
  T: number;
  /** [B·(T-1)] loss_mask · advantage per trained position, row b·(T-1) + t */
  coef: Float32Array;
}

export async function loadGoldenFixture(source: FileSource): Promise<GoldenFixture> {
  const ckpt = await loadHfCheckpoint(source);
  const bytes = await source.read('golden.safetensors');
  if (bytes === null) throw new Error(`${source.name}: no golden.safetensors`);
  const golden = parseSafetensors(bytes, `${source.name}/golden.safetensors`).tensors;
  const ids = golden.get('input_ids');
  if (!ids || ids.shape.length !== 2) throw new Error(`${source.name}/golden.safetensors: no input_ids [B, T]`);
  const [B, T] = ids.shape;
  const flat = Array.from(ids.data as ArrayLike<number>);
  const mask = goldenF64({ name: source.name, golden }, 'loss_mask');
  const adv = goldenF64({ name: source.name, golden }, 'advantages');
  const coef = Float32Array.from({ length: B * (T - 1) }, (_, q) => mask[q] * adv[Math.floor(q / (T - 1))]);
  return {
    name: source.name,
    ckpt,
    golden,
    ids: Array.from({ length: B }, (_, b) => flat.slice(b * T, (b + 1) * T)),
    T,
    coef,
  };
}

/** A golden tensor as float64; throws naming the file when it is missing. */
export function goldenF64(fx: Pick<GoldenFixture, 'name' | 'golden'>, key: string): Float64Array {
  const t = fx.golden.get(key);
  if (!t) throw new Error(`${fx.name}/golden.safetensors: missing "${key}"`);
  return Float64Array.from(t.data as ArrayLike<number>);
}
