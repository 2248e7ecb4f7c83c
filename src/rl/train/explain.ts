// "Explain this step": what one GRPO update did to one problem's group (or every group), in the numbers the
// trainer used, recorded while the step runs (TrainerOptions.explain): each rollout's messages and reward, the
// group's mean and std, each row's advantage, per trained token the ratio, clip code and loss coefficient the
// update used, every optimiser step's gradient norm per layer (the engine's gradients read just before the step),
// and the log-prob of the same sampled tokens before the update (pi_old) and after it (one extra scoring pass).
// Cost when on: one score pass over the explained group's rows after the update, and every trainable tensor's
// gradient read back once per optimiser step; nothing the update computes changes.

import type { TrainablePolicy } from '../../engine/policy/policy.ts';
import type { AgentRole, ExperimentConfig } from '../config.ts';
import { meanAndStd } from '../losses/advantages.ts';
import { messagesOf } from '../protocol/episode.ts';
import type { ScoredEpisode } from './episodes.ts';
import { MAX_TOKENS_PER_TURN_RECORD } from './records.ts';
import type { TrainRow } from './rows.ts';
import { tokenPieces } from './token-view.ts';
import { logprobTemperature, scoreRequests, type ProbedStep, type UpdateProbe } from './update.ts';

/** Which groups a step explains: the first one whose rewards differ (else the first), or every group. */
export type ExplainGroups = 'one' | 'all';

/** Per trained token of one message (at most MAX_TOKENS_PER_TURN_RECORD of them). */
export interface ExplainTokens {
  pieces: string[];
  /** log-prob of the sampled token before the update (pi_old) and after it, at the loss's temperature */
  before: number[];
  after: number[];
  /** pi_theta / pi_old as the last loss that saw the token formed it, and its clip code (-1 low, 0, 1 high) */
  ratio: number[];
  clip: number[];
  /** dLoss/dlogp: the coefficient the token's log-prob got in the backward pass */
  coef: number[];
  advantage: number[];
}

/** One agent's row of a rollout: its reward and advantage, and its trained tokens' log-probs summed. */
export interface ExplainRow {
  role: AgentRole;
  reward: number;
  advantage: number;
  /** trained tokens (0: the row only counted in the group statistics) */
  tokens: number;
  /** Σ log pi over the row's trained tokens before and after the update */
  logpBefore: number;
  logpAfter: number;
}

export interface ExplainMessage {
  role: AgentRole;
  text: string;
  /** present when the message was trained this step */
  tokens?: ExplainTokens;
}

export interface ExplainRollout {
  sample: number;
  messages: ExplainMessage[];
  correct: boolean;
  extracted?: string;
  rows: ExplainRow[];
}

/** The statistics of one agent's GRPO group, from its rows' rewards. */
export interface ExplainStats {
  role: AgentRole;
  rewards: number[];
  mean: number;
  /** unbiased std of the group's rewards (NaN for a group of one) */
  std: number;
  advantages: number[];
}

export interface ExplainGroup {
  group: number;
  question: string;
  gold: string;
  rollouts: ExplainRollout[];
  stats: ExplainStats[];
}

export interface ExplainLayerNorm {
  /** "layer 0", ..., "embedding", "head" */
  name: string;
  norm: number;
}

export interface ExplainOptimizerStep {
  epoch: number;
  miniBatch: number;
  adapter: string;
  /** the global gradient norm the optimiser reported (before clipping) */
  gradNorm: number;
  lr: number;
  applied: boolean;
  /** the gradient's norm per layer: their root-sum-square is gradNorm */
  layers: ExplainLayerNorm[];
}

/** The settings the formulas on each screen need. */
export interface ExplainSettings {
  advantage: ExperimentConfig['advantage'];
  stdScaling: ExperimentConfig['stdScaling'];
  advEps: number;
  ratio: ExperimentConfig['ratio'];
  clipLow: number;
  clipHigh: number;
  aggregation: ExperimentConfig['aggregation'];
  miniBatches: number;
  ppoEpochs: number;
  klBeta: number;
  entropyCoef: number;
  gradClip: number;
  temperature: number;
}

export interface ExplainRecord {
  step: number;
  settings: ExplainSettings;
  groups: ExplainGroup[];
  optimizerSteps: ExplainOptimizerStep[];
  /** the step's grad_norm metric: the mean over its optimiser steps */
  gradNorm: number;
  /** seconds spent on the after-update scoring pass (the recording's main cost) */
  rescoreSeconds: number;
}

/** "layer 3" for a tensor of decoder layer 3, "embedding", "head" (final norm, lm_head), else the name. */
export function layerOf(tensor: string): string {
  const m = /layers\.(\d+)\./.exec(tensor);
  if (m) return `layer ${m[1]}`;
  if (tensor.includes('embed_tokens')) return 'embedding';
  if (tensor.includes('lm_head') || tensor.endsWith('model.norm.weight')) return 'head';
  return tensor;
}

/** Per-tensor norms summed (in squares) per layer, in the order the layers first appear. */
export function layerNorms(tensors: readonly { name: string; norm: number }[]): ExplainLayerNorm[] {
  const sq = new Map<string, number>();
  for (const t of tensors) sq.set(layerOf(t.name), (sq.get(layerOf(t.name)) ?? 0) + t.norm * t.norm);
  return [...sq].map(([name, s]) => ({ name, norm: Math.sqrt(s) }));
}

/** The problem groups to explain: the first whose trained rows' rewards differ (else the first), or all. */
export function pickGroups(
  statRows: readonly TrainRow[],
  scored: readonly ScoredEpisode[],
  which: ExplainGroups,
): number[] {
  const rewards = new Map<number, Set<number>>();
  for (const r of statRows) {
    const g = scored[r.episode].episode.group;
    const set = rewards.get(g) ?? new Set<number>();
    set.add(r.reward);
    rewards.set(g, set);
  }
  const groups = [...rewards.keys()].toSorted((a, b) => a - b);
  if (which === 'all' || groups.length === 0) return groups;
  return [groups.find((g) => rewards.get(g)!.size > 1) ?? groups[0]];
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

function sum(x: ArrayLike<number> | null): number {
  if (!x) return 0;
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s;
}

/** Records what the update does to the chosen groups; finish() after the update scores them again. */
export class StepExplainer {
  private readonly groups: number[];
  private readonly rows: TrainRow[];
  private readonly coefs = new Map<TrainRow, Float32Array>();
  private readonly steps: ProbedStep[] = [];
  readonly probe: UpdateProbe;

  constructor(
    which: ExplainGroups,
    private readonly statRows: readonly TrainRow[],
    trained: readonly TrainRow[],
    private readonly scored: readonly ScoredEpisode[],
  ) {
    this.groups = pickGroups(statRows, scored, which);
    const chosen = new Set(this.groups);
    this.rows = trained.filter((r) => chosen.has(scored[r.episode].episode.group));
    this.probe = {
      rows: new Set(this.rows),
      coef: (row, coef) => this.coefs.set(row, Float32Array.from(coef)),
      step: (s) => this.steps.push(s),
    };
  }

  /** After the update: scores the explained rows under the new weights and builds the record. */
  async finish(
    step: number,
    policy: TrainablePolicy,
    config: ExperimentConfig,
    gradNorm: number,
    decode: (ids: readonly number[]) => string,
  ): Promise<ExplainRecord> {
    const t0 = typeof performance !== 'undefined' ? performance.now() : Date.now();
    const after = new Map<TrainRow, Float32Array>();
    if (this.rows.length > 0) {
      const res = await policy.score(scoreRequests(this.rows), { temperature: logprobTemperature(config) });
      this.rows.forEach((r, i) => after.set(r, res[i].logprobs));
    }
    const rescoreSeconds = ((typeof performance !== 'undefined' ? performance.now() : Date.now()) - t0) / 1000;
    return {
      step,
      settings: {
        advantage: config.advantage,
        stdScaling: config.stdScaling,
        advEps: config.advEps,
        ratio: config.ratio,
        clipLow: config.clipLow,
        clipHigh: config.clipHigh,
        aggregation: config.aggregation,
        miniBatches: config.miniBatches,
        ppoEpochs: config.ppoEpochs,
        klBeta: config.klBeta,
        entropyCoef: config.entropyCoef,
        gradClip: config.gradClip,
        temperature: logprobTemperature(config),
      },
      groups: this.groups.map((g) => this.group(g, after, decode)),
      optimizerSteps: this.steps.map((s) => ({
        epoch: s.epoch,
        miniBatch: s.miniBatch,
        adapter: s.adapter,
        gradNorm: s.gradNorm,
        lr: s.lr,
        applied: s.applied,
        layers: layerNorms(s.tensors),
      })),
      gradNorm,
      rescoreSeconds,
    };
  }

  private group(
    g: number,
    after: ReadonlyMap<TrainRow, Float32Array>,
    decode: (ids: readonly number[]) => string,
  ): ExplainGroup {
    const members = this.scored.map((s, i) => ({ s, i })).filter(({ s }) => s.episode.group === g);
    const rowsOf = (episode: number) => this.statRows.filter((r) => r.episode === episode);
    const roles = [
      ...new Set(this.statRows.filter((r) => this.scored[r.episode].episode.group === g).map((r) => r.role)),
    ];
    const rollouts = members.map(({ s, i }): ExplainRollout => {
      const shown = s.episode.messages.filter((m) => !m.dummy);
      const messages: ExplainMessage[] = shown.map((m) => ({ role: m.role, text: m.text }));
      const rows = rowsOf(i).map((row): ExplainRow => {
        const before = row.oldLogp ?? row.view?.logprobs ?? null;
        const now = after.get(row) ?? null;
        if (before && now) this.attachTokens(row, s, shown, messages, before, now, decode);
        return {
          role: row.role,
          reward: row.reward,
          advantage: row.advantage,
          tokens: row.positions.length,
          logpBefore: sum(before),
          logpAfter: sum(now),
        };
      });
      return {
        sample: s.episode.sample,
        messages,
        correct: s.grade.correct,
        ...(s.grade.extracted !== undefined ? { extracted: s.grade.extracted } : {}),
        rows,
      };
    });
    const stats = roles.map((role): ExplainStats => {
      const rows = rollouts
        .map((r) => r.rows.find((x) => x.role === role))
        .filter((x): x is ExplainRow => x !== undefined);
      const rewards = rows.map((r) => r.reward);
      const { mean, std } = meanAndStd(rewards);
      return { role, rewards, mean, std, advantages: rows.map((r) => r.advantage) };
    });
    const problem = members[0].s.episode.problem;
    return { group: g, question: problem.question, gold: problem.answer, rollouts, stats };
  }

  /** Splits a row's trained tokens by message and attaches them to the shown messages. */
  private attachTokens(
    row: TrainRow,
    s: ScoredEpisode,
    shown: readonly ScoredEpisode['episode']['messages'][number][],
    messages: ExplainMessage[],
    before: Float32Array,
    now: Float32Array,
    decode: (ids: readonly number[]) => string,
  ): void {
    const own = messagesOf(s.episode, row.role);
    const coef = this.coefs.get(row);
    let start = 0;
    while (start < row.turns.length) {
      const turn = row.turns[start];
      let end = start;
      while (end < row.turns.length && row.turns[end] === turn) end++;
      const stop = Math.min(end, start + MAX_TOKENS_PER_TURN_RECORD);
      const at = shown.indexOf(own[turn]);
      if (at >= 0) {
        const ids = row.positions.slice(start, stop).map((p) => row.tokens[p]);
        const slice = (x: ArrayLike<number> | undefined, fill = 0) =>
          Array.from({ length: stop - start }, (_, k) => round(x ? x[start + k] : fill));
        messages[at].tokens = {
          pieces: tokenPieces(decode, ids),
          before: slice(before),
          after: slice(now),
          ratio: slice(row.view?.ratio, 1),
          clip: slice(row.view?.clip, 0),
          coef: slice(coef),
          advantage: Array.from({ length: stop - start }, (_, k) =>
            round(row.tokenAdvantages?.[start + k] ?? row.advantage),
          ),
        };
      }
      start = end;
    }
  }
}
