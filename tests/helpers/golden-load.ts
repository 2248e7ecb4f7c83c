// Test helper: one golden fixture folder (tests/fixtures/golden/<name>) loaded as a checkpoint and its float64
// oracle tensors, and the relative max-error comparison the golden suites assert with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadHfCheckpoint, type HfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../../src/engine/io/memory-source.ts';
import { parseSafetensors, type SafetensorsTensor } from '../../src/engine/io/safetensors.ts';
import { GOLDEN_ROOT } from './golden-fixtures.ts';

export interface GoldenFixture {
  ckpt: HfCheckpoint;
  golden: Map<string, SafetensorsTensor>;
  B: number;
  T: number;
  /** [B][T] token ids */
  ids: number[][];
  /** [B][T-1] mask·advantage */
  coef: number[][];
}

export async function loadGoldenFixture(name: string): Promise<GoldenFixture> {
  const dir = join(GOLDEN_ROOT, name);
  const files: Record<string, Uint8Array> = {};
  for (const f of ['config.json', 'model.safetensors']) files[f] = new Uint8Array(readFileSync(join(dir, f)));
  const ckpt = await loadHfCheckpoint(memoryFileSource(dir, files));
  const golden = parseSafetensors(
    new Uint8Array(readFileSync(join(dir, 'golden.safetensors'))),
    `${name}/golden.safetensors`,
  ).tensors;
  const [B, T] = golden.get('input_ids')!.shape;
  const flat = Array.from(golden.get('input_ids')!.data as ArrayLike<number>);
  const ids = Array.from({ length: B }, (_, b) => flat.slice(b * T, (b + 1) * T));
  const mask = goldenF64(golden, 'loss_mask');
  const adv = goldenF64(golden, 'advantages');
  const coef = Array.from({ length: B }, (_b, b) =>
    Array.from({ length: T - 1 }, (_t, t) => mask[b * (T - 1) + t] * adv[b]),
  );
  return { ckpt, golden, B, T, ids, coef };
}

export function goldenF64(golden: Map<string, SafetensorsTensor>, key: string): Float64Array {
  const t = golden.get(key);
  if (!t) throw new Error(`golden.safetensors: missing "${key}"`);
  return Float64Array.from(t.data as ArrayLike<number>);
}

/** All positions 1..T-1 of every sequence, in order: row q = b·(T-1) + t - 1. */
export function allGoldenPositions(fx: GoldenFixture) {
  return fx.ids.map((tokens) => ({ tokens, positions: Array.from({ length: fx.T - 1 }, (_, i) => i + 1) }));
}

/** Asserts max|got - want| <= rel·max|want| + abs; returns max|Δ| / max|want|. */
export function expectClose(
  label: string,
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  rel: number,
  abs: number,
): number {
  expect(got.length, `${label}: length`).toBe(want.length);
  let d = 0,
    scale = 0;
  for (let i = 0; i < want.length; i++) {
    d = Math.max(d, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  expect(d, `${label}: max|Δ| ${d.toExponential(2)} vs max|want| ${scale.toExponential(2)}`).toBeLessThanOrEqual(
    rel * scale + abs,
  );
  return scale > 0 ? d / scale : d;
}
