// What every stage of a run shares and never changes while it runs: the config, the acting policy and tokenizer,
// the prompts, the problem sets, the answer checker, the frozen agent and the event sink. runContext builds it from
// the trainer's options and checks them first (run-checks.ts, context.ts), so a bad run fails before its first step;
// rolloutSettings hands the rollout code its settings for one batch of episodes.
import type { Problem } from '../../data/problem.ts';
import type { ChatTokenizer } from '../../data/tokenizer.ts';
import type { Policy } from '../../engine/policy/policy.ts';
import type { AgentRole, ExperimentConfig } from '../config.ts';
import { runPrompts } from '../prompts/json-actions.ts';
import type { AgentPrompts } from '../prompts/index.ts';
import { metaActionConstraint } from '../protocol/json-actions/actions.ts';
import type { Episode } from '../protocol/episode.ts';
import type { FrozenActor, RolloutSettings } from '../protocol/rollout.ts';
import { inThreadChecker, type AnswerChecker } from '../verifier/checker.ts';
import { checkFirstPromptFits, type ContextTally } from './context.ts';
import { isTwoAgent } from './episodes.ts';
import { checkMetaActionCap, checkRunOptions, frozenActor } from './run-checks.ts';
import type { StageName, TrainerEvent, TrainerOptions } from './types.ts';

export interface RunContext {
  config: ExperimentConfig;
  /** the acting policy (trained or only evaluated) */
  policy: Policy;
  tokenizer: ChatTokenizer;
  prompts: AgentPrompts;
  train: readonly Problem[];
  /** the held-out problems evaluated (the first evalSize) */
  evalSet: readonly Problem[];
  checker: AnswerChecker;
  emit: (event: TrainerEvent) => void;
  /** the adapter an agent acts and trains with */
  adapterFor: (role: AgentRole) => string;
  /** the first adapter: the shared one, and the label of a single-agent step */
  shared: string;
  maxContext: number;
  frozen: FrozenActor | null;
  jsonActions: boolean;
  /** the token trained after a finished message (config.endTokenTarget): eos as the code, else the template's own */
  endToken: number | undefined;
}

/** The run's context over `policy` acting with `adapters`, after checking the options (throws naming the problem). */
export function runContext(
  opts: Omit<TrainerOptions, 'policy'>,
  policy: Policy,
  adapters: readonly string[],
): RunContext {
  const { config, tokenizer } = opts;
  const train = opts.train;
  const evalSet = config.evalSize > 0 ? opts.eval.slice(0, config.evalSize) : opts.eval;
  const task = checkRunOptions(config, train, evalSet, adapters);
  const prompts = runPrompts(config, task);
  const shared = adapters[0];
  const frozen = frozenActor(opts);
  const maxContext = opts.maxContext ?? policy.contextLength ?? Number.POSITIVE_INFINITY;

  const metaActor = frozen?.role === 'meta' ? frozen : { tokenizer, policy };
  checkMetaActionCap(config, metaActor.tokenizer, metaActor.policy.vocabSize);

  const firstRole: AgentRole = isTwoAgent(config) ? 'meta' : 'reasoning';
  const firstActor = frozen?.role === firstRole ? frozen : { tokenizer, maxContext };
  try {
    checkFirstPromptFits(
      [...train, ...evalSet],
      isTwoAgent(config) ? 'two-agent' : 'single',
      firstRole,
      firstActor.tokenizer,
      prompts,
      firstActor.maxContext,
      config.maxPromptTokens,
    );
  } catch (e) {
    throw new Error(`createTrainer: ${(e as Error).message}`, { cause: e });
  }

  return {
    config,
    policy,
    tokenizer,
    prompts,
    train,
    evalSet,
    checker: opts.checker ?? inThreadChecker(),
    emit: opts.onEvent ?? (() => {}),
    adapterFor: (role) => (config.paramMode === 'separate' && isTwoAgent(config) ? role : shared),
    shared,
    maxContext,
    frozen,
    jsonActions: config.metaActions === 'json',
    endToken: config.endTokenTarget === 'eos' ? tokenizer.eosTokenId : undefined,
  };
}

/** Rollout settings for `episodes` at step `atStep` (progress: how many of them are finished, and the tokens generated). */
export function rolloutSettings(
  ctx: RunContext,
  atStep: number,
  stage: StageName,
  tally: ContextTally,
  episodes: readonly Episode[],
): RolloutSettings {
  const { config } = ctx;
  return {
    policy: ctx.policy,
    tokenizer: ctx.tokenizer,
    prompts: ctx.prompts,
    adapterFor: ctx.adapterFor,
    maxTurns: config.maxTurns,
    maxTokensPerTurn: config.maxTokensPerTurn,
    maxPromptTokens: config.maxPromptTokens,
    maxContext: ctx.maxContext,
    stopWhenTruncated: config.stopWhenTruncated,
    overflowDummy: config.overflowAnswer === 'empty',
    onTokens: (tokens) =>
      ctx.emit({
        type: 'progress',
        step: atStep,
        stage,
        done: episodes.reduce((n, e) => n + (e.finish === null ? 0 : 1), 0),
        total: episodes.length,
        tokens,
      }),
    onContextLimit: tally.add,
    ...(ctx.frozen ? { frozen: ctx.frozen } : {}),
    ...(ctx.jsonActions ? { metaConstraint: metaActionConstraint } : {}),
  };
}
