// Plan intervention: the reasoning agent (current weights, greedy) answers a plan the user wrote, and then the
// episode continues with the normal protocol (the meta-thinking agent may add turns) until it finishes. The
// same function runs the unedited plan, so the two traces differ only by the plan. A frozen ONNX agent
// (config.frozenAgent) answers or plans with its own model and tokenizer, as in training. The page's worker
// (app/worker) calls it with the question and gold answer of a rollout the user picked.
import type { Problem } from '../data/problem.ts';
import type { ChatTokenizer } from '../data/tokenizer.ts';
import type { SamplingParams, TrainablePolicy } from '../engine/policy/policy.ts';
import type { AgentRole, ExperimentConfig } from './config.ts';
import { gradeAnswers } from './grade.ts';
import { runPrompts } from './prompts/json-actions.ts';
import { FINISH_FLAG } from './prompts/paper.ts';
import { encodeChat } from './protocol/encode.ts';
import { chatFor, finalAnswerText, type Episode } from './protocol/episode.ts';
import {
  cutAfterStop,
  multiTurnRollout,
  stripFinish,
  type FrozenActor,
  type RolloutSettings,
} from './protocol/rollout.ts';
import { inThreadChecker, type AnswerChecker } from './verifier/checker.ts';

/** One reasoning-agent run under a given plan. */
export interface InterventionTrace {
  plan: string;
  /** the reasoning agent's answer to the plan */
  reasoning: string;
  /** multi-turn: the rest of the dialogue after that answer (MTA and RA turns, in order) */
  later: { role: 'meta' | 'reasoning'; text: string }[];
  extracted: string | null;
  correct: boolean;
  tokens: number;
}

/**
 * The problem an intervention runs on, from a rollout's question and gold answer. It is a judge problem when the
 * run trains on the tiny judge task and the gold is a verdict ("A" or "B"), so the judge prompts and grading
 * apply; otherwise a math problem (graded by the math verifier against the gold).
 */
export function interventionProblem(
  question: string,
  gold: string,
  config: Pick<ExperimentConfig, 'trainSet'>,
): Problem {
  const judge = /^[AB]$/.test(gold) && config.trainSet === 'tiny-judge';
  return { id: 'intervention', task: judge ? 'judge' : 'math', question, answer: gold };
}

export interface InterventionContext {
  policy: TrainablePolicy;
  tokenizer: ChatTokenizer;
  config: ExperimentConfig;
  /** the model's context length */
  maxContext: number;
  /** the frozen agent of the run, when it has one */
  frozen?: FrozenActor;
  /** grades the math answer (the page's pre-emptible checker worker; default: verifyMath on this thread) */
  checker?: AnswerChecker;
}

/** The adapter an agent acts with: its own in separate mode, else the shared one. */
export function adapterFor(policy: TrainablePolicy, role: AgentRole): string | null {
  if (policy.adapters.includes(role)) return role;
  return policy.adapters[0] ?? null;
}

const greedy: SamplingParams = { temperature: 0, topP: 1, topK: 0, seed: 0 };

export async function followPlan(ctx: InterventionContext, problem: Problem, plan: string): Promise<InterventionTrace> {
  const { config } = ctx;
  // who answers the plan: the frozen reasoning agent (its model and chat template), else the trained policy
  const frozenReasoner = ctx.frozen?.role === 'reasoning' ? ctx.frozen : null;
  const policy = frozenReasoner?.policy ?? ctx.policy;
  const tokenizer = frozenReasoner?.tokenizer ?? ctx.tokenizer;
  const maxContext = frozenReasoner?.maxContext ?? ctx.maxContext;
  const prompts = runPrompts(
    { ...config, mode: config.mode === 'single-turn' ? 'single-turn' : 'multi-turn' },
    problem.task,
  );
  const episode: Episode = {
    problem,
    group: 0,
    sample: 0,
    kind: 'two-agent',
    messages: [{ role: 'meta', text: plan, generated: 0, truncated: false, endedNormally: true, dummy: false }],
    finish: null,
  };
  // 1. the reasoning agent answers the given plan
  const prompt = encodeChat(tokenizer, chatFor(episode, 'reasoning', prompts), [], true).tokens;
  if (prompt.length >= Math.min(config.maxPromptTokens, maxContext)) {
    throw new Error(
      `the plan makes the reasoning agent's prompt ${prompt.length} tokens long; the cap is ${Math.min(config.maxPromptTokens, maxContext)}`,
    );
  }
  const [g] = await policy.generate(
    [
      {
        prompt,
        adapter: frozenReasoner ? null : adapterFor(ctx.policy, 'reasoning'),
        maxNewTokens: Math.min(config.maxTokensPerTurn, maxContext - prompt.length),
        stopStrings: [FINISH_FLAG],
        stopTokenIds: tokenizer.stopTokenIds,
      },
    ],
    greedy,
  );
  episode.messages.push({
    role: 'reasoning',
    text: stripFinish(cutAfterStop(g.text, FINISH_FLAG)),
    generated: g.tokens.length,
    truncated: g.finish === 'length',
    endedNormally: g.finish !== 'length',
    dummy: false,
  });
  // 2. multi-turn: unless the plan already said [FINISH], the dialogue continues as in training (greedy)
  if (config.mode === 'multi-turn' && !plan.includes(FINISH_FLAG) && config.maxTurns > 1) {
    const settings: RolloutSettings = {
      policy: ctx.policy,
      tokenizer: ctx.tokenizer,
      prompts,
      adapterFor: (role) => adapterFor(ctx.policy, role),
      maxTurns: config.maxTurns - 1,
      maxTokensPerTurn: config.maxTokensPerTurn,
      maxPromptTokens: config.maxPromptTokens,
      maxContext: ctx.maxContext,
      stopWhenTruncated: config.stopWhenTruncated,
      ...(ctx.frozen ? { frozen: ctx.frozen } : {}),
    };
    await multiTurnRollout(settings, [episode], { meta: greedy, reasoning: greedy });
  }
  const later = episode.messages
    .slice(2)
    .filter((m) => !m.dummy)
    .map((m) => ({ role: m.role, text: m.text }));
  const [grade] = await gradeAnswers([{ problem, text: finalAnswerText(episode) }], ctx.checker ?? inThreadChecker());
  const tokens = episode.messages.slice(1).reduce((n, m) => n + m.generated, 0);
  return {
    plan,
    reasoning: episode.messages[1].text,
    later,
    extracted: grade.extracted ?? null,
    correct: grade.correct,
    tokens,
  };
}
