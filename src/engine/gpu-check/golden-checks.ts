// The kernel classes the GPU self-test checks against a golden fixture, each a function of a backend, the fixture
// and the storage of the base weights that returns its worst error (max |engine - golden| over the golden tensor's
// max |value|, the largest over the compared tensors). Each runs the path the product runs: the scoring pass, the
// KV-cache decode through the fused inference copy with the cache stored as generation stores it, and the LoRA and
// full-weight backward passes.
import type { Backend } from '../backend.ts';
import { packSequences, type SequenceBatch } from '../model/batch.ts';
import { computeLogits, runSequences, type ActiveWeights } from '../model/decoder.ts';
import { decodeBatch } from '../model/generate.ts';
import { resolveKvCacheDtype } from '../model/kv-cache.ts';
import { allocMerged } from '../model/lora-merge.ts';
import { LORA_MODULE, loraKey, namedLoraParameters, zerosLikeAdapter } from '../model/lora.ts';
import { namedParameters, uploadParams, zerosLikeParams } from '../model/params.ts';
import { cancellingAdapter } from './cancelling-adapter.ts';
import { goldenF64, type GoldenFixture } from './golden-fixture.ts';
import { loraGradsFromFull } from './lora-chain.ts';
import type { StorageType } from './tolerances.ts';

export type CheckKind = 'forward' | 'logprobs' | 'decode' | 'lora-gradients' | 'gradients';

export interface CheckClass {
  kind: CheckKind;
  /** what the check's kernels are, for the printed report */
  what: string;
  /** whether its bound is the outputs' or the gradients' */
  bound: 'outputs' | 'gradients';
  /** f32 only: full fine-tuning always keeps f32 weights */
  f32Only?: boolean;
  run(be: Backend, fx: GoldenFixture, storage: StorageType): Promise<number>;
}

/** max |got - want| / max |want| */
export function relativeError(label: string, got: ArrayLike<number>, want: ArrayLike<number>): number {
  if (got.length !== want.length) throw new Error(`${label}: ${got.length} values, the golden file has ${want.length}`);
  let d = 0;
  let m = 0;
  for (let i = 0; i < want.length; i++) {
    const diff = Math.abs(got[i] - want[i]);
    d = Number.isNaN(diff) || diff > d ? diff : d; // a NaN is the worst error there is
    m = Math.max(m, Math.abs(want[i]));
  }
  return d / Math.max(m, 1e-30);
}

const worst = (errors: number[]): number => errors.reduce((a, b) => (Number.isNaN(b) || b > a ? b : a), 0);

function allPositions(fx: GoldenFixture): SequenceBatch {
  const seqs = fx.ids.map((tokens) => ({ tokens, positions: Array.from({ length: fx.T - 1 }, (_, i) => i + 1) }));
  return packSequences(seqs, fx.ckpt.config.vocabSize);
}

function base(be: Backend, fx: GoldenFixture, storage: StorageType) {
  return uploadParams(be, fx.ckpt.config, fx.ckpt.weights, 'gpu-check', storage);
}

const forward: CheckClass = {
  kind: 'forward',
  what: 'prefill forward: embedding, rmsnorm, RoPE, attention, matmuls, LM head (logits)',
  bound: 'outputs',
  async run(be, fx, storage) {
    const w = { params: base(be, fx, storage), lora: null };
    return relativeError(
      'logits',
      await computeLogits(be, fx.ckpt.config, w, allPositions(fx)),
      goldenF64(fx, 'logits'),
    );
  },
};

const logprobs: CheckClass = {
  kind: 'logprobs',
  what: 'scoring: token log-probs and entropies over the vocabulary',
  bound: 'outputs',
  async run(be, fx, storage) {
    const w = { params: base(be, fx, storage), lora: null };
    const r = await runSequences(be, fx.ckpt.config, w, allPositions(fx), null);
    const errors = [relativeError('token_logprobs', r.logprobs, goldenF64(fx, 'token_logprobs'))];
    if (fx.golden.has('token_entropy'))
      errors.push(relativeError('token_entropy', r.entropy, goldenF64(fx, 'token_entropy')));
    return worst(errors);
  },
};

const decode: CheckClass = {
  kind: 'decode',
  what: 'KV-cache decoding through the fused inference copy (matrix-vector kernels, decode attention, cache writes)',
  bound: 'outputs',
  async run(be, fx, storage) {
    const cfg = fx.ckpt.config;
    const params = base(be, fx, storage);
    const merged = allocMerged(be, cfg, params, cancellingAdapter(be, cfg).adapter);
    const w: ActiveWeights = { params: merged.params, lora: null, fused: merged.fused };
    // sequence b keeps a prompt of 2 + b tokens, then is forced through the rest of its golden tokens
    const prompts = fx.ids.map((ids, b) => ids.slice(0, Math.min(2 + b, fx.T - 1)));
    const got: number[][] = fx.ids.map(() => []);
    await decodeBatch(
      be,
      cfg,
      w,
      prompts,
      (b, row, step) => {
        const t = prompts[b].length + step;
        if (t >= fx.T) return null;
        let max = -Infinity;
        for (const x of row) max = Math.max(max, x);
        let sum = 0;
        for (const x of row) sum += Math.exp(x - max);
        got[b].push(row[fx.ids[b][t]] - max - Math.log(sum));
        return fx.ids[b][t];
      },
      { maxNewTokens: fx.T, kvDtype: resolveKvCacheDtype('auto', be, storage) },
    );
    const golden = goldenF64(fx, 'token_logprobs');
    const want = fx.ids.flatMap((_, b) =>
      Array.from(golden.subarray(b * (fx.T - 1) + prompts[b].length - 1, (b + 1) * (fx.T - 1))),
    );
    return relativeError('decoded log-probs', got.flat(), want);
  },
};

const loraGradients: CheckClass = {
  kind: 'lora-gradients',
  what: 'LoRA backward: attention, matmul, rmsnorm and SwiGLU backward into the adapter gradients',
  bound: 'gradients',
  async run(be, fx, storage) {
    const cfg = fx.ckpt.config;
    const { adapter, host } = cancellingAdapter(be, cfg);
    const grads = zerosLikeAdapter(be, cfg, adapter, 'gpu-check-lora-grad');
    await runSequences(be, cfg, { params: base(be, fx, storage), lora: adapter }, allPositions(fx), {
      coef: fx.coef,
      entropyCoef: null,
      sinks: { full: null, lora: grads },
    });
    const byKey = new Map(namedLoraParameters(grads));
    const errors: number[] = [];
    for (let l = 0; l < cfg.numLayers; l++) {
      for (const target of adapter.targets) {
        const key = loraKey(l, target);
        const A = host.get(`${key}.lora_A.weight`)!;
        const B = host.get(`${key}.lora_B.weight`)!;
        const dW = goldenF64(fx, `grad.model.layers.${l}.${LORA_MODULE[target]}.weight`);
        const { dA, dB } = loraGradsFromFull(dW, A, B, adapter.scale, 2);
        errors.push(relativeError(`${key}.lora_A grad`, await be.download(byKey.get(`${key}.lora_A.weight`)!), dA));
        errors.push(relativeError(`${key}.lora_B grad`, await be.download(byKey.get(`${key}.lora_B.weight`)!), dB));
      }
    }
    return worst(errors);
  },
};

const gradients: CheckClass = {
  kind: 'gradients',
  what: 'full fine-tuning backward: every parameter gradient, embedding and LM head included',
  bound: 'gradients',
  f32Only: true,
  async run(be, fx) {
    const cfg = fx.ckpt.config;
    const sinks = zerosLikeParams(be, cfg, 'gpu-check-grad');
    await runSequences(be, cfg, { params: base(be, fx, 'f32'), lora: null }, allPositions(fx), {
      coef: fx.coef,
      entropyCoef: null,
      sinks: { full: sinks, lora: null },
    });
    const errors: number[] = [];
    for (const [name, t] of namedParameters(sinks))
      errors.push(relativeError(`grad.${name}`, await be.download(t), goldenF64(fx, `grad.${name}`)));
    return worst(errors);
  },
};

/** Every kernel class, in the order the report lists them. */
export const CHECK_CLASSES: readonly CheckClass[] = [forward, logprobs, decode, loraGradients, gradients];
