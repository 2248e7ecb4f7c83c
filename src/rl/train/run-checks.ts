// The checks createTrainer makes of its options before a run starts, each failing with a message that names what
// is wrong: the training and evaluation sets (not empty, one task each), the meta-action JSON mode's protocol and
// task, the adapters separate mode needs, and the frozen agent against config.frozenAgent.
import type { Problem, TaskKind } from '../../data/problem.ts';
import type { ChatTokenizer } from '../../data/tokenizer.ts';
import { smallestMetaActionCap } from '../protocol/json-actions/actions.ts';
import type { ExperimentConfig } from '../config.ts';
import type { FrozenActor } from '../protocol/rollout.ts';
import { isTwoAgent, trainableRoles } from './episodes.ts';
import type { TrainerOptions } from './types.ts';

/** The run's task (that of its training set), after checking the sets, the JSON mode and the adapters. */
export function checkRunOptions(
  config: ExperimentConfig,
  train: readonly Problem[],
  evalSet: readonly Problem[],
  adapters: readonly string[],
): TaskKind {
  const task = taskOf(train, 'training');
  if (evalSet.length > 0) taskOf(evalSet, 'evaluation');
  if (config.metaActions === 'json' && (config.mode !== 'single-turn' || task !== 'math'))
    throw new Error(
      `createTrainer: metaActions "json" runs single-turn ReMA on a math task (paper Sec. 4.2.2); this run is mode "${config.mode}" on a ${task} task`,
    );
  if (config.paramMode === 'separate' && isTwoAgent(config)) {
    const needed = trainableRoles(config);
    for (const a of needed)
      if (!adapters.includes(a))
        throw new Error(
          `createTrainer: paramMode "separate" needs adapters ${needed.map((r) => `"${r}"`).join(' and ')}; the policy has [${adapters.join(', ')}]`,
        );
  }
  return task;
}

/**
 * In meta-action JSON mode, the meta-thinking agent's token cap must let the answer finish (its tokenizer: the frozen
 * agent's when it plays meta): below the smallest cap every plan is cut and no action is chosen.
 */
export function checkMetaActionCap(config: ExperimentConfig, tokenizer: ChatTokenizer, vocabSize: number): void {
  if (config.metaActions !== 'json') return;
  const cap = smallestMetaActionCap(tokenizer, vocabSize);
  if (config.maxTokensPerTurn < cap)
    throw new Error(
      `createTrainer: field "maxTokensPerTurn" is ${config.maxTokensPerTurn}, below the ${cap} tokens the shortest meta-action JSON answer ({"action": "EMPTY", "output": ""} and the end of the turn) needs with this tokenizer; set maxTokensPerTurn to ${cap} or more`,
    );
}

function taskOf(problems: readonly Problem[], what: string): TaskKind {
  if (problems.length === 0) throw new Error(`createTrainer: the ${what} set is empty`);
  const task = problems[0].task;
  const other = problems.find((p) => p.task !== task);
  if (other)
    throw new Error(
      `createTrainer: the ${what} set mixes tasks ("${task}" and "${other.task}" in problem ${other.id})`,
    );
  return task;
}

/** The frozen agent of options that ask for one (config.frozenAgent), checked against the config. */
export function frozenActor(opts: Omit<TrainerOptions, 'policy'>): FrozenActor | null {
  const wanted = opts.config.frozenAgent;
  const given = opts.frozen;
  if (wanted === 'none') {
    if (given)
      throw new Error(`createTrainer: a frozen ${given.role} agent was given but config.frozenAgent is "none"`);
    return null;
  }
  if (!given)
    throw new Error(
      `createTrainer: config.frozenAgent is "${wanted}" but no frozen agent was given (TrainerOptions.frozen: its policy and tokenizer)`,
    );
  if (given.role !== wanted)
    throw new Error(
      `createTrainer: config.frozenAgent is "${wanted}" but the frozen agent given plays "${given.role}"`,
    );
  const maxContext = given.maxContext ?? given.policy.contextLength ?? Number.POSITIVE_INFINITY;
  return { role: given.role, policy: given.policy, tokenizer: given.tokenizer, maxContext };
}
