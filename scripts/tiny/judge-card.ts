// Writes public/models/tiny-rema-judge/README.md (the judge model's card) from its training-log.json (written by
// pretrain.ts --mix judge) and the RL runs' summary (results/tiny-judge/summary.md, written by judge-rl.ts).
//
//   npx tsx scripts/tiny/judge-card.ts [--model public/models/tiny-rema-judge] [--results results/tiny-judge]

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { JudgeEvalSummary } from './judge-eval.ts';
import type { JudgeMixShares } from './mixture.ts';

const root = resolve(import.meta.dirname, '../..');
const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: join(root, 'public/models/tiny-rema-judge') },
    results: { type: 'string', default: join(root, 'results/tiny-judge') },
  },
});

type Acc = Record<string, { correct: number; total: number }>;
interface JudgeLog {
  args: { steps: number; batch: number; lr: number; seed: number; init: string | null };
  parameters: number;
  mixture: JudgeMixShares;
  tokensSeen: number;
  targetTokensSeen: number;
  trainSeconds: number;
  finalEval: { size: number; accuracy: Acc };
  judgeEval: { size: number; accuracy: Acc; detail: JudgeEvalSummary };
  judgeRegression: { size: number; correct: number; forcedCheck: number };
  log: Array<{ step: number; judgeEval?: JudgeEvalSummary }>;
}

const pct = (r: { correct: number; total: number } | undefined) =>
  r ? `${((100 * r.correct) / r.total).toFixed(1)}% (${r.correct}/${r.total})` : '-';
const share = (n: number, of: number) => pct({ correct: n, total: of });

function main(): void {
  const dir = resolve(args.model!);
  const rec = JSON.parse(readFileSync(join(dir, 'training-log.json'), 'utf8')) as JudgeLog;
  const d = rec.judgeEval.detail;
  const m = rec.mixture;
  const summaryFile = join(resolve(args.results!), 'summary.md');
  const rl = existsSync(summaryFile) ? readFileSync(summaryFile, 'utf8').trim() : '(not run yet)';
  const midRun = rec.log
    .filter((e) => e.judgeEval)
    .map(
      (e) =>
        `| ${e.step} | ${share(e.judgeEval!.correct, e.judgeEval!.size)} | ${e.judgeEval!.plans.check} / ${e.judgeEval!.plans.shortcut} / ${e.judgeEval!.plans.other} | ${share(e.judgeEval!.forcedCheck, e.judgeEval!.size)} | ${share(e.judgeEval!.forcedShortcut, e.judgeEval!.size)} |`,
    );
  const card = `# tiny-rema-judge

The embedded tiny model after one more supervised stage on the tiny **judge** task: the same ${rec.parameters.toLocaleString('en')}-parameter
Llama decoder, tokenizer and chat template as [tiny-rema](../tiny-rema/README.md) (its tokenizer files are copied
unchanged), trained from tiny-rema's weights. It exists so that RL on the judge task (preset \`tiny-judge\`) has
something real to find, as tiny-rema's misread plans do for arithmetic: tiny-rema itself is near chance on the judge
task (52.2% on its card's 90 held-out items as it was trained, its meta-thinking agent shown the whole question;
43.3% (39/90) with the current prompts, which show that agent only the instruction), and its two-round judge
dialogue nearly fills the 256-token context.

## The one-round judge dialogue

A judge item (src/data/tiny-task/judge.ts) is a tiny arithmetic problem with two candidate solutions, one right and
one with a single planted wrong equation; the answer is [[A]] or [[B]]. As in the paper's judge (App. G), the
meta-thinking agent sees only the instruction (the arithmetic problem), the reasoning agent the instruction, both
candidates and the plan (src/rl/prompts/index.ts, the tiny prompt set). Here the meta-thinking agent's first plan
ends with [FINISH], so the reasoning agent answers once and the episode ends (the ReMA protocol: after a plan with
[FINISH] the reasoning agent answers once more). Two plans:

- \`Check A and B. [FINISH]\`: the reasoning agent recomputes every equation (the computation it writes for the
  arithmetic task, which equals the right candidate's equations), subtracts B's final answer from the value it
  reached and names B when the difference is 0, else A, e.g. \`23+4=27. 27-5=22. 22-22=0. [[B]]\`.
- \`Trust A. [FINISH]\`: it names A without looking, right only when A is the right candidate (half the items): a
  systematic plan flaw, like tiny-rema's misread losses.

Why these formats: three earlier checking formats were tried first, with the same stage, and failed. Writing only
the first equation where A and B differ: the model did not find it (the right equation in 12 of 60 after 200
steps). Recomputing the chain, then naming the candidate whose final answer it reached, or repeating A's final
answer and naming A when the two agree: after 600-750 steps it still gave one constant verdict (58% right even
with the gold chain and A's answer given, teacher-forced). It did not learn "Pick the larger answer." either (29
of 60 verdicts followed it). A zero test on the digit it has just written is within its reach; comparing two
numbers it read is not.

With the tiny tokenizer the longest checking dialogue of the preset's 128 held-out items is 251 tokens (the plan
text is 11 tokens shorter than the two-round dialogue's "Check each equation of A and B.", which tiny-rema was
trained on).

## Training

\`npx tsx scripts/tiny/pretrain.ts --init public/models/tiny-rema --seed ${rec.args.seed} --steps ${rec.args.steps} --lr ${rec.args.lr} --mix judge --eval-every 400 --out public/models/tiny-rema-judge\`
(also the last stage of \`npm run pretrain-tiny\`): full fine-tuning, AdamW as tiny-rema's stages, linear warm-up and
cosine decay to 10%, batch ${rec.args.batch}. The mixture (scripts/tiny/mixture.ts, \`JUDGE_MIX\`): ${Math.round(100 * m.judge)}% one-round judge
dialogues from the train split, the rest tiny-rema's stage-3 mixture (arithmetic dialogues with misread plans, other
formats, two-round judge dialogues) so the arithmetic is not forgotten. In the judge dialogues the meta-thinking
agent's plan checks in ${Math.round(100 * m.metaCheck)}% and takes the shortcut otherwise, so greedy decoding prefers the shortcut while
samples at temperature 1 often check; the reasoning agent's chats check in ${Math.round(100 * m.reasoningCheck)}% (it has to execute the
checking plan well whatever the planner prefers). ${(rec.tokensSeen / 1e6).toFixed(2)}M tokens seen, ${(rec.targetTokensSeen / 1e6).toFixed(2)}M trained target tokens,
${(rec.trainSeconds / 60).toFixed(1)} min of training on this project's shared 2-core CPU machine (other jobs running).

Greedy judge evaluations during the stage (60 held-out items; first plans check / shortcut / other):

| step | accuracy, own plan | first plans | accuracy, plan forced to check | accuracy, plan forced to the shortcut |
| --- | --- | --- | --- | --- |
${midRun.join('\n')}

## Held-out evaluation (greedy, plain-SIMD WASM)

${d.size} held-out judge items (scripts/tiny/judge-eval.ts, the same items as tiny-rema's card):

| | accuracy | L1 | L2 | L3 |
| --- | --- | --- | --- | --- |
| own plan | ${pct({ correct: d.correct, total: d.size })} | ${pct(d.byLevel.L1)} | ${pct(d.byLevel.L2)} | ${pct(d.byLevel.L3)} |

- first plans: ${d.plans.check} check, ${d.plans.shortcut} shortcut, ${d.plans.other} other; ${d.finished} of ${d.size} episodes finished with [FINISH];
- plan forced to \`Check A and B. [FINISH]\`: ${share(d.forcedCheck, d.size)}; forced to the shortcut: ${share(d.forcedShortcut, d.size)}.
  The gap is what RL can gain by moving the plan.
- tiny-rema on the same items: 43.3% (39/90) with the current prompts (its meta-thinking agent sees only the
  instruction and mostly writes arithmetic plans); 52.2% (47/90) on its card, measured when that agent saw the
  whole question.

Arithmetic task (300 held-out problems, tiny-rema's protocol): ${pct(rec.finalEval.accuracy.all)} after this stage (tiny-rema: 25.7%).

Regression sample (scripts/tiny/judge-eval.ts, checked by tests/models/tiny-judge-model.test.ts): ${rec.judgeRegression.correct}/${rec.judgeRegression.size}
correct with its own plan, ${rec.judgeRegression.forcedCheck}/${rec.judgeRegression.size} with the checking plan.

## RL: \`npx rema train --preset tiny-judge\`

The preset (src/rl/presets.ts): multi-turn ReMA on tiny-judge with this model, tiny-default's sizes (LoRA rank 8,
lr 1e-3, 8 problems × group 8 at temperature 1, 60 steps), at most 2 rounds, greedy evaluation on the same 128
held-out judge items before training and every 10 steps. Three runs one after the other
(\`npx tsx scripts/tiny/judge-rl.ts\`: \`node bin/rema.mjs train --preset tiny-judge --seed S --out DIR\` for seeds 0, 1, 2,
and the shipped tiny-rema evaluated on the same items), on this project's shared 2-core CPU machine (wasm backend,
other jobs running); wall time is the whole command. Files: results/tiny-judge/ (summary.json, summary.md, each
run's config.json; the per-step logs stay in the run folders).

${rl}

Earlier, with the meta-thinking agent shown the whole question (instruction and both candidates; the previous
weights of this model, results of commit b79e185): 50.0% → 94.8% mean (+44.8 points), and the shipped tiny-rema
62.5% (80/128) on the same items.

What RL changes is the meta-thinking agent's plan (the plan columns); the checking itself was learnt in the
supervised stage (the forced-check accuracy before RL). docs/judge-task.md reads the runs.

## Regenerate

\`\`\`bash
npx tsx scripts/tiny/pretrain.ts --init public/models/tiny-rema --seed ${rec.args.seed} --steps ${rec.args.steps} --lr ${rec.args.lr} --mix judge --eval-every 400 --out public/models/tiny-rema-judge
npx tsx scripts/tiny/judge-rl.ts      # the RL runs and results/tiny-judge/
npx tsx scripts/tiny/judge-card.ts    # this card
\`\`\`
`;
  writeFileSync(join(dir, 'README.md'), card);
  process.stdout.write(`wrote ${join(dir, 'README.md')}\n`);
}

main();
