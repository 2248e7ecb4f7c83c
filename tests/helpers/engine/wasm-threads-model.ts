// The whole-model run of the two-thread WASM tests (tests/engine/backends/wasm/threads.test.ts and its relaxed-SIMD
// child process wasm-threads-relaxed-check.ts): a golden fixture's model forward (logits, log-probs, entropies),
// every full gradient, and the gradients of a LoRA adapter with non-zero B and an entropy term, all read back to the
// host.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../../../src/engine/backend.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../../../src/engine/io/memory-source.ts';
import { parseSafetensors } from '../../../src/engine/io/safetensors.ts';
import { packSequences } from '../../../src/engine/model/batch.ts';
import { computeLogits, runSequences } from '../../../src/engine/model/decoder.ts';
import {
  createLoraAdapter,
  namedLoraParameters,
  zerosLikeAdapter,
  LORA_MODULE,
} from '../../../src/engine/model/lora.ts';
import { namedParameters, uploadParams, zerosLikeParams } from '../../../src/engine/model/params.ts';
import { Rng } from '../../../src/util/rng.ts';
import { GOLDEN_ROOT, goldenFixtures as goldenFixtureFolders } from '../golden-fixtures.ts';

/** index of the first element that differs bit for bit (NaN payloads aside), or -1 */
export function firstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

const root = GOLDEN_ROOT;

/** The golden fixtures' folder names (tests/fixtures/golden/; throws when fewer than the tracked count). */
export function goldenFixtures(): string[] {
  return goldenFixtureFolders('golden.safetensors');
}

/** Every output of the run by name (Float32Array copies). */
export async function modelRun(be: Backend, name: string) {
  const dir = join(root, name);
  const files: Record<string, Uint8Array> = {};
  for (const f of ['config.json', 'model.safetensors']) files[f] = new Uint8Array(readFileSync(join(dir, f)));
  const ckpt = await loadHfCheckpoint(memoryFileSource(dir, files));
  const golden = parseSafetensors(new Uint8Array(readFileSync(join(dir, 'golden.safetensors'))), 'golden').tensors;
  const idsT = golden.get('input_ids')!;
  const [B, T] = idsT.shape;
  const flat = Array.from(idsT.data as ArrayLike<number>);
  const seqs = Array.from({ length: B }, (_, b) => ({
    tokens: flat.slice(b * T, (b + 1) * T),
    positions: Array.from({ length: T - 1 }, (_x, i) => i + 1),
  }));
  const coef = Float32Array.from({ length: B * (T - 1) }, (_, q) => ((q * 7919) % 13) / 13 - 0.4);
  const cfg = ckpt.config;
  const params = uploadParams(be, cfg, ckpt.weights);
  const batch = packSequences(seqs, cfg.vocabSize);
  const out = new Map<string, Float32Array>();
  out.set('logits', await computeLogits(be, cfg, { params, lora: null }, batch));
  const grads = zerosLikeParams(be, cfg, 'grad');
  const full = await runSequences(be, cfg, { params, lora: null }, batch, {
    coef,
    entropyCoef: null,
    sinks: { full: grads, lora: null },
  });
  out.set('logprobs', full.logprobs);
  out.set('entropy', full.entropy);
  for (const [key, t] of namedParameters(grads)) out.set(`grad.${key}`, Float32Array.from(await be.download(t)));
  // a LoRA adapter with non-zero B so the adapted forward differs from the base model
  const adapter = createLoraAdapter(be, cfg, {
    name: 'x',
    rank: 3,
    alpha: 6,
    targets: Object.keys(LORA_MODULE),
    seed: 1,
  });
  const rng = new Rng(11);
  for (const [, t] of namedLoraParameters(adapter))
    be.upload(
      t,
      Float32Array.from({ length: t.shape[0] * t.shape[1] }, () => 0.1 * rng.normal()),
    );
  const lgrads = zerosLikeAdapter(be, cfg, adapter, 'glora');
  const lora = await runSequences(be, cfg, { params, lora: adapter }, batch, {
    coef,
    entropyCoef: Float32Array.from(coef, (c) => 0.01 * c),
    sinks: { full: null, lora: lgrads },
  });
  out.set('lora.logprobs', lora.logprobs);
  for (const [key, t] of namedLoraParameters(lgrads)) out.set(`lora.${key}`, Float32Array.from(await be.download(t)));
  return out;
}
