// Supervised fine-tuning on chats (the paper's warm start before RL): the loss is the mean negative log-likelihood
// of every assistant message's tokens (and the end-of-turn token closing it) in a batch, all other tokens masked,
// as LLaMA-Factory trains by default. One step: zeroGrad, accumulate  Σ_t (-1/N) · logp_t  example by example
// (so memory holds one sequence at a time), one AdamW step. The order of examples is a seeded shuffle per epoch.
// The step loop (runSftSteps) and the trained model's weights (sftWeights) are shared by `rema sft` and the page.

import type { SftChat } from '../data/sft-chats.ts';
import { supervisedExample, type SupervisedExample } from '../data/tiny-task/sft.ts';
import type { ChatMessage, ChatTokenizer } from '../data/tokenizer.ts';
import { deserializeModelWeights } from '../engine/io/hf-model.ts';
import { parsePeftAdapter } from '../engine/io/peft.ts';
import { mergePeftIntoWeights } from '../engine/io/peft-merge.ts';
import type { HostWeights, ModelConfig, ModelWeights } from '../engine/model/config.ts';
import { tensorFloat32 } from '../engine/io/host-weights.ts';
import type { TrainablePolicy } from '../engine/policy/policy.ts';
import { Rng } from '../util/rng.ts';

export interface SftOptions {
  /** chats per optimiser step */
  batchSize: number;
  /** passes over the data */
  epochs: number;
  /** tokens per chat; a longer chat is cut after this many tokens (LLaMA-Factory's cutoff_len) */
  cutoff: number;
  /** seeds the per-epoch shuffle */
  seed: number;
}

/** A chat as token ids with the positions whose tokens are trained. */
export interface SftExample extends SupervisedExample {
  /** the chat's line in its file (for messages) */
  line: number;
  /** true when the cutoff removed tokens */
  truncated: boolean;
}

export interface SftStepResult {
  /** mean negative log-likelihood per trained token, before the update */
  loss: number;
  /** trained tokens in the batch */
  tokens: number;
  gradNorm: number;
  lr: number;
  /** false when the optimiser skipped a non-finite update */
  applied: boolean;
}

/** Characters per cutoff token a chat keeps before it is tokenised (grown when that is too few tokens). */
const CHARS_PER_TOKEN = 8;
const CHAR_SLACK = 4_096;
/** Tokens past the cutoff a cut chat must still have, so the cut's own boundary lies beyond the cutoff. */
const TOKEN_MARGIN = 16;

/** The chat's messages cut to `chars` characters of content in all (later messages dropped). */
function cutMessages(messages: readonly ChatMessage[], chars: number): ChatMessage[] {
  const out: ChatMessage[] = [];
  let left = chars;
  for (const m of messages) {
    if (left <= 0) break;
    out.push(m.content.length <= left ? m : { ...m, content: m.content.slice(0, left) });
    left -= m.content.length;
  }
  return out;
}

/**
 * The chat's example within `cutoff` tokens, tokenising no more text than that needs: a chat whose content is
 * longer than CHARS_PER_TOKEN * cutoff characters is cut there first (the cut grown while it gives too few tokens),
 * so a 100 MB message costs what its first tokens cost. `cut` when text was removed before tokenising.
 */
function exampleWithin(
  tok: ChatTokenizer,
  messages: readonly ChatMessage[],
  cutoff: number,
): { ex: SupervisedExample; cut: boolean } {
  let total = 0;
  for (const m of messages) total += m.content.length;
  for (let chars = cutoff * CHARS_PER_TOKEN + CHAR_SLACK; chars < total; chars *= 4) {
    const ex = supervisedExample(tok, cutMessages(messages, chars));
    if (ex.tokens.length > cutoff + TOKEN_MARGIN) return { ex, cut: true };
  }
  return { ex: supervisedExample(tok, messages), cut: false };
}

/**
 * Tokenise chats with the model's chat template; chats left with no trained token after the cutoff are dropped
 * (`dropped`: their lines), chats whose text was cut before tokenising are listed in `cut` (their lines).
 */
export function sftExamples(
  tok: ChatTokenizer,
  chats: readonly SftChat[],
  cutoff: number,
  file: string,
): { examples: SftExample[]; dropped: number[]; cut: number[] } {
  const examples: SftExample[] = [];
  const dropped: number[] = [];
  const cutLines: number[] = [];
  for (const chat of chats) {
    let ex: SupervisedExample;
    try {
      const made = exampleWithin(tok, chat.messages, cutoff);
      ex = made.ex;
      if (made.cut) cutLines.push(chat.line);
    } catch (e) {
      throw new Error(`${file}:${chat.line}: ${(e as Error).message}`, { cause: e });
    }
    const truncated = ex.tokens.length > cutoff;
    const targets = truncated ? ex.targets.filter((t) => t < cutoff) : ex.targets;
    if (targets.length === 0) {
      dropped.push(chat.line);
      continue;
    }
    examples.push({ tokens: truncated ? ex.tokens.slice(0, cutoff) : ex.tokens, targets, line: chat.line, truncated });
  }
  return { examples, dropped, cut: cutLines };
}

/** Lines for a message: the first five, then "...". */
const someLines = (lines: readonly number[]) => `${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', ...' : ''}`;

/**
 * The examples of several chat files (any number of chats: no argument spreading), with a note per file on chats
 * cut before tokenising and chats skipped for having nothing to train within the cutoff.
 */
export function sftExamplesOfFiles(
  tok: ChatTokenizer,
  sets: readonly { file: string; chats: readonly SftChat[] }[],
  cutoff: number,
): { examples: SftExample[]; truncated: number; notes: string[] } {
  const examples: SftExample[] = [];
  const notes: string[] = [];
  let truncated = 0;
  for (const { file, chats } of sets) {
    const made = sftExamples(tok, chats, cutoff, file);
    for (const e of made.examples) {
      examples.push(e);
      if (e.truncated) truncated++;
    }
    if (made.cut.length > 0)
      notes.push(
        `${file}: ${made.cut.length} chats longer than ${cutoff} tokens were cut before tokenising (lines ${someLines(made.cut)})`,
      );
    if (made.dropped.length > 0)
      notes.push(
        `${file}: ${made.dropped.length} chats have no trained token within the cutoff (${cutoff}) and are skipped (lines ${someLines(made.dropped)})`,
      );
  }
  return { examples, truncated, notes };
}

/** Optimiser steps in a run: ceil(examples / batch) per epoch. */
export function sftStepCount(examples: number, opts: Pick<SftOptions, 'batchSize' | 'epochs'>): number {
  return Math.ceil(examples / opts.batchSize) * opts.epochs;
}

/** Indices of the examples of step `step` (0-based): epoch e is a seeded shuffle, cut into batches (the last may be short). */
export function sftBatch(examples: number, opts: SftOptions, step: number): number[] {
  const perEpoch = Math.ceil(examples / opts.batchSize);
  const epoch = Math.floor(step / perEpoch);
  const order = new Rng(opts.seed * 1_000_003 + epoch).shuffle(Array.from({ length: examples }, (_, i) => i));
  const k = step % perEpoch;
  return order.slice(k * opts.batchSize, (k + 1) * opts.batchSize);
}

/** One optimiser step on a batch of examples for `adapter` ("full" or a LoRA adapter name). */
export async function sftStep(
  policy: TrainablePolicy,
  adapter: string,
  batch: readonly SftExample[],
): Promise<SftStepResult> {
  const tokens = batch.reduce((s, e) => s + e.targets.length, 0);
  policy.zeroGrad(adapter);
  let sumLogp = 0;
  for (const e of batch) {
    const [r] = await policy.accumulateGradients([
      { tokens: e.tokens, positions: e.targets, adapter, coef: new Float32Array(e.targets.length).fill(-1 / tokens) },
    ]);
    for (const lp of r.logprobs) sumLogp += lp;
  }
  await policy.optimizerStep(adapter);
  // the step's own result (one small read per SFT step)
  const step = (await policy.readOptimizerStats(adapter)).at(-1)!;
  return { loss: -sumLogp / tokens, tokens, gradNorm: step.gradNorm, lr: step.lr, applied: step.applied };
}

/** One finished step of runSftSteps, 1-based. */
export interface SftStepRecord extends SftStepResult {
  step: number;
  epoch: number;
  examples: number;
  time_s: number;
}

/**
 * Steps `from + 1` .. `to` of an SFT run over `examples` (the batches of sftBatch, so a resumed run continues the
 * same order). `onStep` runs after each step (metrics, checkpoints, the page's loss curve); `stop` is asked before
 * each step (Pause). Returns the last finished step.
 */
export async function runSftSteps(
  policy: TrainablePolicy,
  adapter: string,
  examples: readonly SftExample[],
  schedule: SftOptions,
  range: { from: number; to: number },
  hooks: { onStep?: (r: SftStepRecord) => void | Promise<void>; stop?: () => boolean } = {},
): Promise<number> {
  const perEpoch = sftStepCount(examples.length, { batchSize: schedule.batchSize, epochs: 1 });
  let step = range.from;
  while (step < range.to && !(hooks.stop?.() ?? false)) {
    const t0 = performance.now();
    const batch = sftBatch(examples.length, schedule, step).map((i) => examples[i]);
    const r = await sftStep(policy, adapter, batch);
    step += 1;
    await hooks.onStep?.({
      ...r,
      step,
      epoch: Math.floor((step - 1) / perEpoch) + 1,
      examples: batch.length,
      time_s: (performance.now() - t0) / 1000,
    });
  }
  return step;
}

/** The trained model's weights: the full weights, or the base with the LoRA adapter merged in. */
export async function sftWeights(
  policy: TrainablePolicy,
  adapter: string,
  base: { weights: HostWeights; config: ModelConfig },
): Promise<ModelWeights> {
  const saved = await policy.saveAdapter(adapter);
  if (adapter === 'full') {
    const bytes = saved['model.safetensors'];
    if (bytes === undefined) throw new Error('the full-weights policy saved no model.safetensors');
    return deserializeModelWeights(bytes, base.config);
  }
  return mergePeftIntoWeights(base.weights, parsePeftAdapter(saved, base.config));
}

/** FNV-1a over the float32 bits of every tensor in name order (16-bit tensors widened, so a checkpoint has one
 *  checksum however it was loaded): tells two sets of weights apart. */
export function weightsChecksum(weights: HostWeights): string {
  let h = 0x811c9dc5;
  for (const name of [...weights.keys()].toSorted()) {
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
    const data = tensorFloat32(weights.get(name)!);
    const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
    for (let i = 0; i < bits.length; i++) h = Math.imul(h ^ bits[i], 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
