// Prints greedy ReMA multi-turn episodes of a tiny model folder on held-out problems: a quick look at what the
// model plans and computes (used while pretraining to see which errors remain).
//   npx tsx scripts/tiny/show-episodes.ts [model folder, default public/models/tiny-rema] [count, default 9]

import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';
import { TINY_MODEL_DIR } from './build-tokenizer.ts';
import { greedyEpisodes, greedyModelFromFolder } from './rollout.ts';

const folder = process.argv[2] ?? TINY_MODEL_DIR;
const count = Number(process.argv[3] ?? 9);
const { config, tok, policy } = await greedyModelFromFolder(folder);
const problems = tinyArithProblems({ split: 'heldout', count, seed: 12345 });
for (const e of await greedyEpisodes(policy, tok, problems, 'full', config.maxPositionEmbeddings)) {
  console.log(`${e.correct ? 'RIGHT' : 'wrong'} ${e.problem.level} ${e.problem.question} (gold ${e.problem.answer})`);
  for (const t of e.turns)
    console.log(`  meta: ${JSON.stringify(t.meta)}\n  reasoning: ${JSON.stringify(t.reasoning)}`);
}
