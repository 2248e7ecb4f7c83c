// Greedy ReMA multi-turn rollouts of the tiny model, for pretraining evals and the model's regression test.
// Follows the ReMA code's protocol (rema-paper-and-code §2.3-2.4): per round, the meta-thinking agent writes
// m_t, then the reasoning agent answers y_t; [FINISH] is a stop string for both and is stripped from y_t; after
// an m_t with [FINISH] the reasoning agent answers once more and the episode ends. (The RL layer has its own,
// configurable implementation; this one is fixed to the tiny task's prompts and caps.)

import { metaChat, reasoningChat, stripFinish } from '../../src/data/tiny-task/chats.ts';
import {
  TINY_JUDGE_META_SYSTEM,
  TINY_JUDGE_REASONING_SYSTEM,
  TINY_META_SYSTEM,
  TINY_REASONING_SYSTEM,
} from '../../src/data/tiny-task/prompts.ts';
import type { DialogueTurn } from '../../src/data/tiny-task/traces.ts';
import { promptsFor } from '../../src/rl/prompts/index.ts';
import { FINISH } from '../../src/data/tiny-task/traces.ts';
import type { Problem } from '../../src/data/problem.ts';
import type { ChatTokenizer } from '../../src/data/tokenizer.ts';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { createEnginePolicy, type EnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import type { ModelConfig, ModelWeights } from '../../src/engine/model/config.ts';
import type { Policy, TokenDecoder } from '../../src/engine/policy/policy.ts';

/**
 * The policy the tiny model's recorded accuracies are measured with: its full weights, frozen (lr 0), on the plain
 * SIMD WASM build (so a recorded number does not depend on whether relaxed SIMD is available).
 */
export async function greedyEvalPolicy(
  config: ModelConfig,
  weights: ModelWeights,
  decoder: TokenDecoder,
  seed = 0,
): Promise<EnginePolicy> {
  return createEnginePolicy({
    backend: await WasmBackend.create({ variant: 'simd' }),
    config,
    weights,
    decoder,
    training: { mode: 'full', adapters: ['full'] },
    optimizer: {
      lr: 0,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weightDecay: 0,
      gradClip: 0,
      schedule: { kind: 'constant' },
    },
    seed,
  });
}

/** A model folder's config and tokenizer, and its greedyEvalPolicy. */
export async function greedyModelFromFolder(
  dir: string,
): Promise<{ config: ModelConfig; tok: ChatTokenizer; policy: EnginePolicy }> {
  const source = directoryFileSource(dir);
  const { config, weights } = await loadHfCheckpoint(source);
  const tok = await loadHfTokenizer(source);
  return { config, tok, policy: await greedyEvalPolicy(config, weights, tok) };
}

export interface RolloutCaps {
  maxRounds: number;
  maxTokensPerTurn: number;
}

export const TINY_EVAL_CAPS: RolloutCaps = { maxRounds: 3, maxTokensPerTurn: 64 };

export interface Episode {
  problem: Problem;
  turns: DialogueTurn[];
  finished: boolean;
  predicted: string | null;
  correct: boolean;
}

/** The content of the last \boxed{...} (balanced braces), or null. */
export function lastBoxed(text: string): string | null {
  const at = text.lastIndexOf('\\boxed{');
  if (at < 0) return null;
  let depth = 1;
  for (let i = at + 7; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(at + 7, i).trim();
  }
  return null;
}

/** The letter of the last [[A]] / [[B]] verdict, or null. */
export function lastVerdict(text: string): string | null {
  const all = [...text.matchAll(/\[\[([AB])\]\]/g)];
  return all.length > 0 ? all[all.length - 1][1] : null;
}

/** The meta-thinking agent's first user message, as the RL layer's tiny prompts build it (judge: the instruction). */
function tinyMetaUser(problem: Problem): string {
  return promptsFor('tiny', 'multi-turn', problem.task).metaUser(problem.question, problem);
}

export async function greedyEpisodes(
  policy: Policy,
  tok: ChatTokenizer,
  problems: readonly Problem[],
  adapter: string | null,
  /** the model's max_position_embeddings: prompt + generated tokens must stay inside it */
  contextLength: number,
  caps: RolloutCaps = TINY_EVAL_CAPS,
  /** the meta-thinking agent's first message, given instead of generated (e.g. to measure how well the reasoning
   *  agent executes one plan) */
  firstPlan?: string,
): Promise<Episode[]> {
  // the tiny prompt set: judge problems get the judge system prompts (all problems of a call share a task)
  const judge = problems.length > 0 && problems[0].task === 'judge';
  const metaSystem = judge ? TINY_JUDGE_META_SYSTEM : TINY_META_SYSTEM;
  const reasoningSystem = judge ? TINY_JUDGE_REASONING_SYSTEM : TINY_REASONING_SYSTEM;
  const sampling = { temperature: 0, topP: 1, topK: 0, seed: 0 };
  const states = problems.map((problem) => ({ problem, turns: [] as DialogueTurn[], done: false, finished: false }));
  // One batched greedy call; prompts too long for the context get no turn (null), the others share a token cap
  // that keeps every sequence inside the context.
  const gen = async (prompts: string[]) => {
    const encoded = prompts.map((p) => tok.encode(p));
    const fits = encoded.map((ids) => ids.length + 16 <= contextLength);
    const longest = Math.max(0, ...encoded.filter((_, i) => fits[i]).map((ids) => ids.length));
    const maxNewTokens = Math.min(caps.maxTokensPerTurn, contextLength - longest);
    const requests = encoded.filter((_, i) => fits[i]);
    const out = await policy.generate(
      requests.map((prompt) => ({
        prompt,
        adapter,
        maxNewTokens,
        stopStrings: [FINISH],
        stopTokenIds: tok.stopTokenIds,
      })),
      sampling,
    );
    let next = 0;
    return fits.map((ok) => (ok ? out[next++] : null));
  };
  for (let round = 0; round < caps.maxRounds; round++) {
    const active = states.filter((s) => !s.done);
    if (active.length === 0) break;
    const metaPrompts = active.map((s) =>
      tok.applyChatTemplate(
        metaChat(metaSystem, tinyMetaUser(s.problem), [...s.turns, { meta: '', reasoning: '' }]).slice(0, -1),
        {
          addGenerationPrompt: true,
        },
      ),
    );
    const metas =
      round === 0 && firstPlan !== undefined
        ? active.map(() => ({ text: firstPlan, finish: 'stop' as const }))
        : await gen(metaPrompts);
    active.forEach((s, i) => s.turns.push({ meta: metas[i]?.text ?? '', reasoning: '' }));
    const reasoningPrompts = active.map((s) =>
      tok.applyChatTemplate(reasoningChat(reasoningSystem, s.problem.question, s.turns).slice(0, -1), {
        addGenerationPrompt: true,
      }),
    );
    const answers = await gen(reasoningPrompts);
    active.forEach((s, i) => {
      const m = metas[i];
      const y = answers[i];
      s.turns[s.turns.length - 1].reasoning = y ? stripFinish(y.text) : '';
      if (!m || !y || m.finish === 'length' || y.finish === 'length') s.done = true;
      else if (m.text.includes(FINISH)) {
        s.done = true;
        s.finished = true;
      }
    });
  }
  return states.map((s) => {
    const last = s.turns.length > 0 ? s.turns[s.turns.length - 1].reasoning : '';
    const predicted = judge ? lastVerdict(last) : lastBoxed(last);
    return {
      problem: s.problem,
      turns: s.turns,
      finished: s.finished,
      predicted,
      correct: s.finished && predicted === s.problem.answer,
    };
  });
}

/** Accuracy overall and per level ("L1".."L3"). */
export function accuracyByLevel(episodes: readonly Episode[]): Record<string, { correct: number; total: number }> {
  const out: Record<string, { correct: number; total: number }> = {};
  for (const e of episodes) {
    for (const key of ['all', e.problem.level ?? '?']) {
      out[key] ??= { correct: 0, total: 0 };
      out[key].total++;
      if (e.correct) out[key].correct++;
    }
  }
  return out;
}
