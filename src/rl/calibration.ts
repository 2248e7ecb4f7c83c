// How long a training step and a whole run take on the loaded model, from a short calibration: one decode call
// of the step's shape (prefill, then a few decode steps), one scoring pass and one gradient chunk (stepShape, the
// planner's workload), scaled to the step's decode calls, messages, chunks and epochs and to the run's steps and
// evaluations. An estimate: real messages stop early, this assumes every message runs to its token limit.
import type { ModelConfig } from '../engine/model/config.ts';
import type { GenerateRequest, GradientRequest, TrainablePolicy } from '../engine/policy/policy.ts';
import type { ExperimentConfig } from './config.ts';
import { stepShape } from './plan.ts';

export interface CalibrationTimings {
  /** one decode call: prefill and the first token */
  prefill_s: number;
  /** each further token of a decode call */
  per_token_s: number;
  /** scoring one gradient chunk (no backward) */
  score_chunk_s: number;
  /** forward + backward of one gradient chunk */
  gradient_chunk_s: number;
}

export interface CalibrationEstimate extends CalibrationTimings {
  step_s: number;
  run_s: number;
  /** the parts of a step */
  parts: { rollout_s: number; scoring_s: number; update_s: number };
  eval_s: number;
  evaluations: number;
}

function messagesPerEpisode(config: ExperimentConfig): number {
  return config.mode === 'multi-turn' ? 2 * config.maxTurns : config.mode === 'single-turn' ? 2 : 1;
}

/** The step and run time a config takes given the measured timings of its shape. */
export function estimateRun(config: ExperimentConfig, model: ModelConfig, t: CalibrationTimings): CalibrationEstimate {
  const shape = stepShape(config, model, 'f32');
  const messages = messagesPerEpisode(config);
  const message_s = t.prefill_s + Math.max(0, shape.decode.newTokens - 1) * t.per_token_s;
  const rollouts = config.problemsPerStep * config.groupSize;
  const rollout_s = Math.ceil(rollouts / shape.decode.sequences) * messages * message_s;
  const agents =
    config.paramMode === 'separate' || (config.mode !== 'multi-turn' && config.mode !== 'single-turn') ? 1 : 2;
  const chunks = Math.ceil((rollouts * agents) / shape.gradient.sequences);
  const scoring_s = chunks * t.score_chunk_s * (config.klBeta > 0 ? 2 : 1);
  const update_s = chunks * config.ppoEpochs * t.gradient_chunk_s;
  const step_s = rollout_s + scoring_s + update_s;
  const evalCalls = Math.ceil(Math.max(1, config.evalSize || 1) / shape.decode.sequences);
  const eval_s = evalCalls * messages * message_s;
  const evaluations =
    (config.evalBeforeTrain ? 1 : 0) + (config.evalEvery > 0 ? Math.floor(config.steps / config.evalEvery) : 0);
  return {
    ...t,
    step_s,
    run_s: config.steps * step_s + evaluations * eval_s,
    parts: { rollout_s, scoring_s, update_s },
    eval_s,
    evaluations,
  };
}

const DECODE_STEPS = 4;

/** A fixed workload to time: `sequences` prompts of `promptTokens` decoding 1 and 1 + `decodeSteps` tokens, and a
 *  chunk of `rows` x `rowTokens` tokens whose last `trained` positions are scored and back-propagated. */
export interface RoundWorkload {
  sequences: number;
  promptTokens: number;
  decodeSteps: number;
  rows: number;
  rowTokens: number;
  trained: number;
  /** sequences that share a prompt (a GRPO group); default 1 */
  group?: number;
  /** the loss coefficient of every trained position; default 0 */
  coef?: number;
}

/** Milliseconds of each part of one round of the workload on the policy: a decode call of 1 new token (prefill),
 *  one of 1 + decodeSteps, a scoring pass and a gradient chunk (whose gradients are cleared after). */
export async function timeRound(
  policy: TrainablePolicy,
  w: RoundWorkload,
  clock: () => number,
): Promise<{ prefill: number; decode: number; score: number; gradient: number }> {
  const V = policy.vocabSize;
  const adapter = policy.adapters[0] ?? null;
  const token = (i: number) => 3 + (i % Math.max(1, V - 3));
  const group = w.group ?? 1;
  const requests = (maxNewTokens: number): GenerateRequest[] =>
    Array.from({ length: w.sequences }, (_, s) => ({
      prompt: Array.from({ length: w.promptTokens }, (_x, j) => token(Math.floor(s / group) * 7 + j * 5)),
      adapter,
      maxNewTokens,
      stopStrings: [],
      stopTokenIds: [],
    }));
  const rows: GradientRequest[] = Array.from({ length: w.rows }, (_, r) => ({
    tokens: Array.from({ length: w.rowTokens }, (_x, i) => token(r * 11 + i * 3)),
    positions: Array.from({ length: w.trained }, (_x, i) => w.rowTokens - w.trained + i),
    adapter,
    coef: new Float32Array(w.trained).fill(w.coef ?? 0),
  }));
  const sampling = { temperature: 1, topP: 1, topK: 0, seed: 1 };
  const time = async (f: () => Promise<unknown>) => {
    const t0 = clock();
    await f();
    return clock() - t0;
  };
  const prefill = await time(() => policy.generate(requests(1), sampling));
  const decode = await time(() => policy.generate(requests(1 + w.decodeSteps), sampling));
  const score = await time(() => policy.score(rows));
  const gradient = await time(() => policy.accumulateGradients(rows));
  for (const a of policy.adapters) policy.zeroGrad(a);
  return { prefill, decode, score, gradient };
}

/** Times one decode call (1 and 1 + DECODE_STEPS new tokens), one scoring pass and one gradient chunk of the
 *  config's step shape on the policy; the gradients it accumulates are cleared. */
export async function calibrate(
  policy: TrainablePolicy,
  config: ExperimentConfig,
  model: ModelConfig,
  clock: () => number = () => performance.now(),
): Promise<CalibrationEstimate> {
  const shape = stepShape(config, model, 'f32');
  const trained = Math.max(
    1,
    Math.min(shape.gradient.tokens - 1, Math.floor(shape.gradient.selected / shape.gradient.sequences)),
  );
  const ms = await timeRound(
    policy,
    {
      sequences: shape.decode.sequences,
      promptTokens: shape.decode.promptTokens,
      decodeSteps: DECODE_STEPS,
      rows: shape.gradient.sequences,
      rowTokens: shape.gradient.tokens,
      trained,
      group: Math.max(1, Math.min(config.groupSize, shape.decode.sequences)),
    },
    clock,
  );
  return estimateRun(config, model, {
    prefill_s: ms.prefill / 1000,
    per_token_s: Math.max(0, ms.decode - ms.prefill) / 1000 / DECODE_STEPS,
    score_chunk_s: ms.score / 1000,
    gradient_chunk_s: ms.gradient / 1000,
  });
}
