// Prints greedy ReMA multi-turn episodes of a tiny model folder on held-out problems: a quick look at what the
// model plans and computes (used while pretraining to see which errors remain).
//   npx tsx scripts/tiny/show-episodes.ts [model folder, default public/models/tiny-rema] [count, default 9]

import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { createEnginePolicy } from '../../src/engine/engine-policy.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { TINY_MODEL_DIR } from './build-tokenizer.ts';
import { greedyEpisodes } from './rollout.ts';

const folder = process.argv[2] ?? TINY_MODEL_DIR;
const count = Number(process.argv[3] ?? 9);
const source = directoryFileSource(folder);
const { config, weights } = await loadHfCheckpoint(source);
const tok = await loadHfTokenizer(source);
const policy = createEnginePolicy({
  backend: await WasmBackend.create({ variant: 'simd' }),
  config,
  weights,
  decoder: tok,
  training: { mode: 'full', adapters: ['full'] },
  optimizer: { lr: 0, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, gradClip: 0, schedule: { kind: 'constant' } },
  seed: 0,
});
const problems = tinyArithProblems({ split: 'heldout', count, seed: 12345 });
for (const e of await greedyEpisodes(policy, tok, problems, 'full', config.maxPositionEmbeddings)) {
  console.log(`${e.correct ? 'RIGHT' : 'wrong'} ${e.problem.level} ${e.problem.question} (gold ${e.problem.answer})`);
  for (const t of e.turns) console.log(`  meta: ${JSON.stringify(t.meta)}\n  reasoning: ${JSON.stringify(t.reasoning)}`);
}
