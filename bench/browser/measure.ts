// How the benchmark times one runtime on one model, shared by the Node run (bench/run.ts: our CPU backends vs
// onnxruntime-node) and the Chromium page (bench/browser/page.ts: our WebGPU / WASM backends vs onnxruntime-web).
// Both sides do the same work, as each is used for generation:
//   forward  : B sequences of T tokens scored at every position: onnxruntime returns the logits [B,T,V] (what a
//              full ONNX export computes); our engine the log-prob and entropy of each next token, from the same
//              LM-head matmul chunked over the vocabulary (how it scores for training; it never keeps [B,T,V])   [B*T tok]
//   prefill  : B distinct prompts of P tokens into an empty KV cache, next-token logits of the last position
//   decode   : then N-1 more greedy steps, one token per sequence per step, with the KV cache           [B*(N-1) tok]
// Our engine runs prefill+decode through decodeBatch (src/engine/model/generate.ts); onnxruntime runs the Optimum
// layout export (model_kv.onnx: input_ids [B,T], attention_mask [B,P+T], position_ids [B,T], past_key_values.{l}.
// key/value [B,Hkv,P,Dh] -> logits [B,T,V], present.*) batched over B, feeding `present` back as the next `past`
// (on the WebGPU EP the page keeps `present` on the GPU, as transformers.js does; logits come back to the host).
// transformers.js (@huggingface/transformers) runs the same model_kv.onnx as `onnx/model.onnx` of a Hugging Face
// folder through its own generate(): greedy (do_sample false), max_new_tokens N, eos_token_id null so every sequence
// gets exactly N tokens (the same tokens as the other runtimes). A streamer marks the first step: generate() hands
// it the prompt first, then the new tokens after each step, so prefill = start -> first new tokens, decode = first
// new tokens -> generate() returns, as for the other runtimes.
// Every generation reads the clock three times (start, first new tokens, end) and a forward twice, whatever the
// runtime: in Chromium the clock can be the renderer's CPU time, read through a request that costs ~1 ms itself. Its forward is model.forward({ input_ids, attention_mask }) with an empty
// past: logits [B,T,V], like model.onnx. What transformers.js adds over plain onnxruntime (tensor wrapping, its
// logits processors and sampler, feeding present back as past) is part of its time.
// No node:* and no DOM here: the same file runs in both places.
import type { PreTrainedModel, Tensor as TransformersTensor } from '@huggingface/transformers';
import type { Backend } from '../../src/engine/backend.ts';
import type { ModelConfig } from '../../src/engine/model/config.ts';
import { packSequences } from '../../src/engine/model/batch.ts';
import { runSequences, type ActiveWeights } from '../../src/engine/model/decoder.ts';
import { decodeBatch } from '../../src/engine/model/generate.ts';

/** Seconds spent in the prefill and in the decode steps of one generation. */
export interface GenerationTiming {
  prefillSeconds: number;
  decodeSeconds: number;
  /** the greedy tokens of each sequence (tests check both runtimes did the same work) */
  tokens: number[][];
}

/** The parts of onnxruntime (node or web) this file uses. */
export interface OrtTensorLike {
  readonly data: unknown;
  readonly dims: readonly number[];
  /** frees a GPU-resident output (onnxruntime-web's preferredOutputLocation 'gpu-buffer') */
  dispose?(): void;
}
export interface OrtSessionLike {
  run(feeds: Record<string, OrtTensorLike>): Promise<Record<string, OrtTensorLike>>;
}
export type OrtTensorFactory = (
  type: 'int64' | 'float32',
  data: BigInt64Array | Float32Array,
  dims: number[],
) => OrtTensorLike;

/** Deterministic token ids in [0, V): sequence `seed`, length n (distinct per seed). */
export function benchTokens(n: number, seed: number, V: number): number[] {
  return Array.from({ length: n }, (_, i) => (i * 131 + seed * 7919 + 3) % V);
}

/** Median of `repeats` timed calls after one untimed warm-up call. */
export async function medianOf<T>(repeats: number, run: () => Promise<T>, pick: (x: T) => number): Promise<number> {
  await run();
  const xs: number[] = [];
  for (let i = 0; i < repeats; i++) xs.push(pick(await run()));
  return median(xs);
}

export function median(xs: number[]): number {
  return xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
}

function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

let now = () => performance.now() / 1000;

/** Times with another clock, in seconds (Node: the process's CPU time, robust on a shared machine). */
export function useClock(clock: () => number): void {
  now = clock;
}

/** Engine forward over B sequences scoring every next token (log-probs and entropies read back to the host). */
export async function engineForward(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  seqs: number[][],
): Promise<number> {
  const batch = packSequences(
    seqs.map((tokens) => ({ tokens, positions: tokens.slice(1).map((_, i) => i + 1) })),
    cfg.vocabSize,
  );
  const t0 = now();
  await runSequences(be, cfg, w, batch, null);
  await be.sync();
  return now() - t0;
}

/** Engine greedy generation of `maxNew` tokens after each prompt (prompts distinct, same length). */
export async function engineGeneration(
  be: Backend,
  cfg: ModelConfig,
  w: ActiveWeights,
  prompts: number[][],
  maxNew: number,
): Promise<GenerationTiming> {
  const t0 = now();
  let firstStep = 0;
  const tokens: number[][] = prompts.map(() => []);
  await decodeBatch(
    be,
    cfg,
    w,
    prompts,
    (b, logits) => {
      const token = argmax(logits);
      tokens[b].push(token);
      return token;
    },
    {
      maxNewTokens: maxNew,
      onStep: () => {
        if (firstStep === 0) firstStep = now();
      },
    },
  );
  return { prefillSeconds: firstStep - t0, decodeSeconds: now() - firstStep, tokens };
}

/** onnxruntime forward of model.onnx (input_ids [B,T] -> logits [B,T,V]). */
export async function ortForward(session: OrtSessionLike, tensor: OrtTensorFactory, seqs: number[][]): Promise<number> {
  const [B, T] = [seqs.length, seqs[0].length];
  const feeds = {
    input_ids: tensor(
      'int64',
      BigInt64Array.from(seqs.flat(), (x) => BigInt(x)),
      [B, T],
    ),
  };
  const t0 = now();
  const out = await session.run(feeds);
  void out.logits.data; // the logits are on the host (CPU outputs)
  return now() - t0;
}

/** onnxruntime greedy generation with model_kv.onnx, batched over the prompts. */
export async function ortGeneration(
  session: OrtSessionLike,
  tensor: OrtTensorFactory,
  cfg: ModelConfig,
  prompts: number[][],
  maxNew: number,
): Promise<GenerationTiming> {
  const [B, P] = [prompts.length, prompts[0].length];
  const { numLayers: L, numKvHeads: Hkv, headDim: Dh, vocabSize: V } = cfg;
  const int64 = (values: ArrayLike<number>, dims: number[]) =>
    tensor(
      'int64',
      BigInt64Array.from(values as number[], (x) => BigInt(x)),
      dims,
    );
  let past: OrtTensorLike[] = [];
  for (let l = 0; l < 2 * L; l++) past.push(tensor('float32', new Float32Array(0), [B, Hkv, 0, Dh]));
  let ids = prompts.flat();
  let T = P;
  let pastLength = 0;
  const tokens: number[][] = prompts.map(() => []);
  const t0 = now();
  let firstStep = 0;
  for (let step = 0; step < maxNew; step++) {
    const feeds: Record<string, OrtTensorLike> = {
      input_ids: int64(ids, [B, T]),
      attention_mask: tensor('int64', new BigInt64Array(B * (pastLength + T)).fill(1n), [B, pastLength + T]),
      position_ids: int64(
        Array.from({ length: B * T }, (_, i) => pastLength + (i % T)),
        [B, T],
      ),
    };
    for (let l = 0; l < L; l++) {
      feeds[`past_key_values.${l}.key`] = past[2 * l];
      feeds[`past_key_values.${l}.value`] = past[2 * l + 1];
    }
    const out = await session.run(feeds);
    const logits = out.logits.data as Float32Array;
    ids = Array.from({ length: B }, (_, b) => argmax(logits.subarray(((b + 1) * T - 1) * V, (b + 1) * T * V)));
    ids.forEach((token, b) => tokens[b].push(token));
    for (const t of past) t.dispose?.();
    past = Array.from({ length: 2 * L }, (_, i) => out[`present.${i >> 1}.${i & 1 ? 'value' : 'key'}`]);
    pastLength += T;
    T = 1;
    if (step === 0) firstStep = now();
  }
  for (const t of past) t.dispose?.();
  return { prefillSeconds: firstStep - t0, decodeSeconds: now() - firstStep, tokens };
}

/** transformers.js's Tensor constructor (from the same import as the model: node or web build). */
export type TransformersTensorClass = new (type: 'int64', data: BigInt64Array, dims: number[]) => TransformersTensor;

function transformersInputs(Tensor: TransformersTensorClass, seqs: number[][]) {
  const [B, T] = [seqs.length, seqs[0].length];
  return {
    input_ids: new Tensor(
      'int64',
      BigInt64Array.from(seqs.flat(), (x) => BigInt(x)),
      [B, T],
    ),
    attention_mask: new Tensor('int64', new BigInt64Array(B * T).fill(1n), [B, T]),
  };
}

/** Frees what a transformers.js forward left on the GPU (present.* stay there on the WebGPU device). */
function disposeOutputs(out: Record<string, unknown>): void {
  for (const t of Object.values(out)) {
    const tensor = t as { location?: string; dispose?: () => void };
    if (tensor?.location === 'gpu-buffer') tensor.dispose?.();
  }
}

/** transformers.js forward: B sequences of T tokens through its causal LM (empty past) -> logits [B,T,V]. */
export async function transformersForward(
  model: PreTrainedModel,
  Tensor: TransformersTensorClass,
  seqs: number[][],
): Promise<number> {
  const inputs = transformersInputs(Tensor, seqs);
  const t0 = now();
  const out = (await model.forward(inputs)) as Record<string, unknown> & { logits: TransformersTensor };
  void out.logits.data; // on the host
  const seconds = now() - t0;
  disposeOutputs(out);
  return seconds;
}

/** transformers.js greedy generation of exactly `maxNew` tokens after each prompt (batched, prompts of one length). */
export async function transformersGeneration(
  model: PreTrainedModel,
  Tensor: TransformersTensorClass,
  prompts: number[][],
  maxNew: number,
): Promise<GenerationTiming> {
  let puts = 0;
  let firstStep = 0;
  const streamer = {
    put() {
      if (++puts === 2) firstStep = now(); // put 1 is the prompt, put 2 the first new tokens
    },
    end() {},
  };
  const t0 = now();
  // eos_token_id null is what GenerationConfig's default holds; the .d.ts does not admit null, nor a plain streamer
  const options = {
    ...transformersInputs(Tensor, prompts),
    max_new_tokens: maxNew,
    do_sample: false,
    eos_token_id: null,
    streamer,
  };
  const out = (await model.generate(
    options as unknown as Parameters<PreTrainedModel['generate']>[0],
  )) as TransformersTensor;
  const P = prompts[0].length;
  const end = now();
  const rows = out.tolist() as bigint[][];
  const tokens = rows.map((row) => row.slice(P).map(Number));
  return { prefillSeconds: firstStep - t0, decodeSeconds: end - firstStep, tokens };
}

/** Tokens/s figures of one runtime on one model: forward, prefill and decode at B = 1 and B = G. */
export interface RuntimeSpeeds {
  runtime: string;
  forward_tok_s: number;
  prefill_tok_s_B1: number;
  prefill_tok_s_G: number;
  decode_tok_s_G1: number;
  decode_tok_s_G: number;
}

export interface SpeedPlan {
  /** forward: batch of B sequences of T tokens */
  forwardB: number;
  forwardT: number;
  /** prompt length and new tokens per generation (decode steps = maxNew - 1) */
  promptLength: number;
  maxNew: number;
  /** the group size of the batched runs (GRPO group) */
  G: number;
  repeats: number;
}

/** The runtime-specific calls measureSpeeds needs. */
export interface RuntimeCalls {
  forward(seqs: number[][]): Promise<number>;
  generate(prompts: number[][], maxNew: number): Promise<GenerationTiming>;
}

/** Measures one runtime with the plan; every figure is the median of plan.repeats runs after a warm-up. */
export async function measureSpeeds(
  runtime: string,
  calls: RuntimeCalls,
  V: number,
  plan: SpeedPlan,
): Promise<RuntimeSpeeds> {
  const { forwardB, forwardT, promptLength: P, maxNew: N, G, repeats } = plan;
  const fwdSeqs = Array.from({ length: forwardB }, (_, b) => benchTokens(forwardT, b, V));
  const forward = await medianOf(
    repeats,
    () => calls.forward(fwdSeqs),
    (s) => s,
  );
  const speeds: RuntimeSpeeds = {
    runtime,
    forward_tok_s: round((forwardB * forwardT) / forward),
    prefill_tok_s_B1: 0,
    prefill_tok_s_G: 0,
    decode_tok_s_G1: 0,
    decode_tok_s_G: 0,
  };
  const cases = [
    [1, 'prefill_tok_s_B1', 'decode_tok_s_G1'],
    [G, 'prefill_tok_s_G', 'decode_tok_s_G'],
  ] as const;
  for (const [B, prefillKey, decodeKey] of cases) {
    const prompts = Array.from({ length: B }, (_, b) => benchTokens(P, 100 + b, V));
    await calls.generate(prompts, N); // warm-up
    const runs: GenerationTiming[] = [];
    for (let i = 0; i < repeats; i++) runs.push(await calls.generate(prompts, N));
    speeds[prefillKey] = round((B * P) / median(runs.map((r) => r.prefillSeconds)));
    speeds[decodeKey] = round((B * (N - 1)) / median(runs.map((r) => r.decodeSeconds)));
  }
  return speeds;
}

function round(x: number): number {
  return x >= 100 ? Math.round(x) : +x.toFixed(2);
}

/** speeds of `a` divided by those of `b`, per figure (e.g. engine / onnxruntime). */
export function speedRatios(a: RuntimeSpeeds, b: RuntimeSpeeds): Record<string, number> {
  const keys = ['forward_tok_s', 'prefill_tok_s_B1', 'prefill_tok_s_G', 'decode_tok_s_G1', 'decode_tok_s_G'] as const;
  return Object.fromEntries(keys.map((k) => [k, +(a[k] / b[k]).toFixed(3)]));
}
