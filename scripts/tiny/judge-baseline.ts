// The shipped tiny-rema on the tiny judge task under the current tiny prompts (the meta-thinking agent sees only
// the instruction, as in the paper): greedy multi-turn episodes on the card's 90 held-out judge items, written to
// public/models/tiny-rema/judge-eval.json with each item's verdict, so the model card quotes a measured figure and
// tests/models/tiny-model.test.ts can re-measure items of it. training-log.json keeps the figure recorded in
// training, when that agent saw the whole question.
//   npx tsx scripts/tiny/judge-baseline.ts [--model public/models/tiny-rema]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { tinyJudgeProblems } from '../../src/data/tiny-task/index.ts';
import { JUDGE_EVAL_SET } from './judge-eval.ts';
import { accuracyByLevel, greedyEpisodes, greedyModelFromFolder } from './rollout.ts';

export interface JudgeBaseline {
  prompts: string;
  size: number;
  accuracy: Record<string, { correct: number; total: number }>;
  /** per item, in JUDGE_EVAL_SET order: its id and whether the final verdict named the right candidate */
  items: { id: string; correct: boolean }[];
  command: string;
}

export const JUDGE_BASELINE_FILE = 'judge-eval.json';

/** Greedy judge episodes of the model in `dir` on the first `count` items of the card's judge set. */
export async function measureJudgeBaseline(dir: string, count = JUDGE_EVAL_SET.count): Promise<JudgeBaseline> {
  const { config, tok, policy } = await greedyModelFromFolder(dir);
  const problems = tinyJudgeProblems({ ...JUDGE_EVAL_SET, count });
  const episodes = await greedyEpisodes(policy, tok, problems, 'full', config.maxPositionEmbeddings);
  return {
    prompts: 'tiny (the judge meta-thinking agent sees only the instruction)',
    size: episodes.length,
    accuracy: accuracyByLevel(episodes),
    items: episodes.map((e) => ({ id: e.problem.id, correct: e.correct })),
    command: 'npx tsx scripts/tiny/judge-baseline.ts',
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { model: { type: 'string', default: 'public/models/tiny-rema' } } });
  const result = await measureJudgeBaseline(values.model);
  writeFileSync(join(values.model, JUDGE_BASELINE_FILE), JSON.stringify(result, null, 2) + '\n');
  const a = result.accuracy;
  console.log(`judge (tiny prompts, ${result.size} held-out, greedy): ${a.all.correct}/${a.all.total}`);
}
