// The tiny task's public surface, for the RL layer, the app and the CLI:
//   tinyArithProblems / tinyJudgeProblems   -> Problem[] ('tiny-arith' / 'tiny-judge' datasets; split train|heldout)
//   TINY_* prompts + reasoningFirstUserMessage (the "tiny" prompt set the embedded model was trained with)
//   traces, chats and supervisedExample     (supervised data in every format, for SFT experiments)

export { tinyArithProblems, tinyJudgeItems, tinyJudgeProblems, tinySpecs, type TinySetOptions } from './dataset.ts';
export { LEVELS, type TinyLevel, type TinyProblemSpec, type TinySplit } from './generator.ts';
export * from './prompts.ts';
export { metaChat, reasoningChat, stripFinish } from './chats.ts';
export {
  CONFIRM_TURN,
  DEFAULT_MIX,
  FINISH,
  chainOfThoughtTrace,
  multiTurnTrace,
  planThenSolveTrace,
  singleTurnTrace,
  type DialogueTurn,
  type MultiTurnTrace,
  type PlanVariant,
  type TraceMix,
} from './traces.ts';
export { JUDGE_PLAN, judgeTrace, type JudgeItem } from './judge.ts';
export { supervisedChats, type SupervisedChat } from './corpus.ts';
export { supervisedExample, type SupervisedExample } from './sft.ts';
