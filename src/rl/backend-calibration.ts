// Which compute backend trains a config fastest on the loaded model, by measuring rather than by adapter type: each
// candidate backend (WebGPU, the WebAssembly kernels, plain JavaScript) runs the same short workload on the real
// model (a few decode steps of a group of sequences, one scoring pass and one gradient chunk; smaller for a larger
// model), within a time budget shared by the candidates; the rates it measures (ms per prefilled, decoded, scored
// and back-propagated token) are scaled to the config's step by calibration.ts's estimateRun, and the backend with
// the shortest estimated step wins. The rates do not depend on the config, so a page can keep them per adapter and
// model and choose again for another config without measuring.
import type { Backend } from '../engine/backend.ts';
import type { ModelConfig } from '../engine/model/config.ts';
import type { TrainablePolicy } from '../engine/policy/policy.ts';
import { estimateRun, timeRound } from './calibration.ts';
import type { ExperimentConfig } from './config.ts';
import { stepShape } from './plan.ts';

/** What one backend measured, per token, the fastest of its rounds. */
export interface BackendRates {
  /** the candidate's name: "webgpu", "wasm" or "cpu" */
  backend: string;
  /** the backend's own description, e.g. "wasm (WebAssembly relaxed SIMD kernels, 1 thread)" */
  description: string;
  /** prefill (and the first token), per prompt token of the decode call */
  prefill_ms_per_token: number;
  /** each further decode step, per sequence: the time of one generated token in a group */
  decode_ms_per_token: number;
  /** a scoring pass (forward only), per token of the chunk */
  score_ms_per_token: number;
  /** forward + backward of a gradient chunk, per token */
  gradient_ms_per_token: number;
  /** the untimed first round (weights on the device, shaders compiled) */
  warmup_ms: number;
  /** timed rounds after the warm-up */
  rounds: number;
  /** warm-up and rounds together */
  spent_ms: number;
}

/** A candidate's rates and the step time they give for a config. */
export interface BackendEstimate extends BackendRates {
  /** estimated seconds per training step of the config (estimateRun) */
  step_s: number;
}

/** A candidate that could not run the workload (out of memory, a lost device). */
export interface BackendFailure {
  backend: string;
  description: string;
  error: string;
}

export interface BackendChoice {
  /** the winner's candidate name */
  winner: string;
  /** every candidate that ran, in the order measured */
  estimates: BackendEstimate[];
  failed: BackendFailure[];
  /** wall time of the whole calibration (policies built, warm-ups and rounds) */
  measured_ms: number;
  /** why the winner won, in words */
  reason: string;
}

export interface CandidateBackend {
  name: string;
  backend: Backend;
  /** a policy already on this backend (a running trainer's): measured instead of building one (no second copy of the
   *  weights), its gradients zeroed after, and left to its owner */
  policy?: TrainablePolicy;
}

export interface CalibrateBackendsOptions {
  config: ExperimentConfig;
  model: ModelConfig;
  /** the policy the trainer would build on a backend (same adapters and weight storage); disposed after measuring */
  policyFor: (backend: Backend) => TrainablePolicy;
  /** total time for the timed rounds of all candidates (each gets an equal share); a candidate always runs its
   *  warm-up and one round, so a slow one can exceed it. Default 1000 ms */
  budgetMs?: number;
  /** most timed rounds per candidate; default 8 */
  maxRounds?: number;
  clock?: () => number;
  /** a candidate starts (for a progress line) */
  onCandidate?: (name: string) => void;
}

/** Workloads from the fullest to the smallest: sequences x prompt tokens decoding `decode` tokens, and a chunk of
 *  rows x tokens. A larger model gets a smaller one, so that a round stays short on a CPU. */
const LADDER = [
  { sequences: 8, prompt: 32, decode: 4, rows: 4, tokens: 64 },
  { sequences: 4, prompt: 16, decode: 4, rows: 2, tokens: 32 },
  { sequences: 2, prompt: 8, decode: 2, rows: 1, tokens: 16 },
  { sequences: 1, prompt: 4, decode: 2, rows: 1, tokens: 8 },
] as const;
/** Most weight x token products a round may take (about 8 GFLOP): the embedded model gets the fullest workload,
 *  a 100M-parameter model or larger the smallest. */
const MAX_PARAM_TOKENS = 4e9;

/** Weights a token passes through: the layers' projections and the LM head (embeddings are a lookup). */
export function weightsPerToken(model: ModelConfig): number {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: Dh, numLayers: L } = model;
  return L * (2 * D * H * Dh + 2 * D * Hkv * Dh + 3 * D * F) + model.vocabSize * D;
}

/** The fixed workload: a small slice of the config's step, sized to the model (LADDER), clamped to the step's own
 *  shape and to the model's context. A token's backward counts as three forwards. */
export function backendWorkload(config: ExperimentConfig, model: ModelConfig) {
  const shape = stepShape(config, model, 'f32');
  const perToken = weightsPerToken(model);
  const cost = (l: (typeof LADDER)[number]) => perToken * (l.sequences * (l.prompt + l.decode) + 4 * l.rows * l.tokens);
  const l = LADDER.find((x) => cost(x) <= MAX_PARAM_TOKENS) ?? LADDER[LADDER.length - 1];
  const context = model.maxPositionEmbeddings;
  const sequences = Math.max(1, Math.min(l.sequences, shape.decode.sequences));
  const promptTokens = Math.max(1, Math.min(l.prompt, shape.decode.promptTokens, context - l.decode - 1));
  const rows = Math.max(1, Math.min(l.rows, shape.gradient.sequences));
  const rowTokens = Math.max(2, Math.min(l.tokens, shape.gradient.tokens, context));
  return {
    sequences,
    promptTokens,
    decodeSteps: l.decode,
    rows,
    rowTokens,
    trained: Math.floor(rowTokens / 2),
  };
}

type Workload = ReturnType<typeof backendWorkload>;

/** Times the workload on one policy: a warm-up round, then rounds until `shareMs` (warm-up included) is spent or
 *  `maxRounds` ran (at least one); each rate is taken from the fastest round. */
export async function measurePolicy(
  policy: TrainablePolicy,
  w: Workload,
  opts: { shareMs: number; maxRounds: number; clock: () => number },
): Promise<Omit<BackendRates, 'backend' | 'description'>> {
  const { clock } = opts;
  const round = { ...w, coef: 1e-3 }; // a small nonzero loss, so the backward runs as in training
  const start = clock();
  await timeRound(policy, round, clock);
  const warmup_ms = clock() - start;
  const best = { prefill: Infinity, decode: Infinity, score: Infinity, gradient: Infinity };
  let rounds = 0;
  let last = 0;
  do {
    const t0 = clock();
    const r = await timeRound(policy, round, clock);
    last = clock() - t0;
    for (const k of ['prefill', 'decode', 'score', 'gradient'] as const) best[k] = Math.min(best[k], r[k]);
    rounds++;
  } while (rounds < opts.maxRounds && clock() - start + last <= opts.shareMs);
  const chunkTokens = w.rows * w.rowTokens;
  return {
    prefill_ms_per_token: best.prefill / (w.sequences * w.promptTokens),
    decode_ms_per_token: Math.max(0, best.decode - best.prefill) / (w.decodeSteps * w.sequences),
    score_ms_per_token: best.score / chunkTokens,
    gradient_ms_per_token: best.gradient / chunkTokens,
    warmup_ms,
    rounds,
    spent_ms: clock() - start,
  };
}

/** The step time a backend's rates give for a config: the rates scaled to the config's step shape (estimateRun). */
export function estimateStep(rates: BackendRates, config: ExperimentConfig, model: ModelConfig): number {
  const shape = stepShape(config, model, 'f32');
  const chunkTokens = shape.gradient.sequences * shape.gradient.tokens;
  return estimateRun(config, model, {
    prefill_s: (rates.prefill_ms_per_token * shape.decode.sequences * shape.decode.promptTokens) / 1000,
    per_token_s: (rates.decode_ms_per_token * shape.decode.sequences) / 1000,
    score_chunk_s: (rates.score_ms_per_token * chunkTokens) / 1000,
    gradient_chunk_s: (rates.gradient_ms_per_token * chunkTokens) / 1000,
  }).step_s;
}

/** The backend with the shortest estimated step for the config (the first measured on a tie). */
export function chooseBackend(
  rates: readonly BackendRates[],
  config: ExperimentConfig,
  model: ModelConfig,
  extra: { failed?: BackendFailure[]; measured_ms: number },
): BackendChoice {
  const failed = extra.failed ?? [];
  if (rates.length === 0) {
    const why = failed.map((f) => `${f.backend}: ${f.error}`).join('; ');
    throw new Error(`no backend could run the model${why ? ` (${why})` : ''}`);
  }
  const estimates = rates.map((r) => ({ ...r, step_s: estimateStep(r, config, model) }));
  const best = estimates.reduce((a, b) => (b.step_s < a.step_s ? b : a));
  const others = estimates.filter((e) => e !== best);
  const reason =
    others.length === 0
      ? `the only backend that ran${failed.length ? ` (${failed.map((f) => `${f.backend} failed: ${f.error}`).join('; ')})` : ''}`
      : `shortest estimated step for this config: ${seconds(best.step_s)} against ${others
          .map((o) => `${o.backend} ${seconds(o.step_s)}`)
          .join(', ')}`;
  return { winner: best.backend, estimates, failed, measured_ms: extra.measured_ms, reason };
}

/** Measures every candidate in turn (each with an equal share of the budget) and chooses by estimated step time. A
 *  candidate that throws is reported in `failed` and left out. The candidates' backends stay the caller's. */
export async function calibrateBackends(
  candidates: readonly CandidateBackend[],
  opts: CalibrateBackendsOptions,
): Promise<BackendChoice> {
  const clock = opts.clock ?? (() => performance.now());
  const budget = opts.budgetMs ?? 1000;
  const w = backendWorkload(opts.config, opts.model);
  const start = clock();
  const rates: BackendRates[] = [];
  const failed: BackendFailure[] = [];
  for (const c of candidates) {
    opts.onCandidate?.(c.name);
    let policy: TrainablePolicy | null = null;
    try {
      policy = c.policy ?? opts.policyFor(c.backend);
      const measured = await measurePolicy(policy, w, {
        shareMs: budget / candidates.length,
        maxRounds: opts.maxRounds ?? 8,
        clock,
      });
      rates.push({ backend: c.name, description: c.backend.description, ...measured });
    } catch (e) {
      failed.push({ backend: c.name, description: c.backend.description, error: (e as Error).message });
    } finally {
      if (policy && policy !== c.policy) await policy.dispose();
    }
  }
  return chooseBackend(rates, opts.config, opts.model, { failed, measured_ms: clock() - start });
}

function seconds(s: number): string {
  return s >= 10 ? `${s.toFixed(0)} s` : s >= 1 ? `${s.toFixed(1)} s` : `${ms(s * 1000)} ms`;
}

function ms(n: number): string {
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toPrecision(2);
}

/** One line for the page: "auto -> wasm: 0.45 ms/token, 1.2 s/step (webgpu 9.1 ms/token, 6.0 s/step; measured 2.3 s, cached)". */
/** `switchedFrom`: the backend the model ran on until the measurement chose another. */
export function describeBackendChoice(
  choice: BackendChoice,
  opts: { cached: boolean; note?: string | null; switchedFrom?: string },
): string {
  const rate = (e: BackendEstimate) => `${ms(e.decode_ms_per_token)} ms/token, ${seconds(e.step_s)}/step`;
  const winner = choice.estimates.find((e) => e.backend === choice.winner);
  const others = choice.estimates.filter((e) => e.backend !== choice.winner).map((e) => `${e.backend} ${rate(e)}`);
  const failed = choice.failed.map((f) => `${f.backend} failed: ${f.error}`);
  const tail = [
    ...others,
    ...failed,
    ...(opts.note ? [opts.note] : []),
    ...(opts.switchedFrom ? [`switched from ${opts.switchedFrom}`] : []),
    `measured ${seconds(choice.measured_ms / 1000)}${opts.cached ? ', cached' : ''}`,
  ];
  return `auto -> ${choice.winner}: ${winner ? rate(winner) : '?'} (${tail.join('; ')})`;
}
