// `npm run pretrain-tiny`: supervised warm-up of the embedded tiny model with the project's own engine
// (createEnginePolicy, full fine-tuning, SFT as Σ -1/N · logp over target tokens), deterministic given its seed.
// Writes public/models/tiny-rema/{config.json, model.safetensors, generation_config.json, training-log.json,
// README.md}; the tokenizer files come from build-tokenizer.ts. Prints progress as it goes.
//
//   npx tsx scripts/tiny/pretrain.ts [--steps 1200] [--batch 16] [--lr 3e-3] [--seed 1] [--backend wasm|cpu]
//                                    [--hidden 64 --layers 3 --intermediate 176] [--out DIR] [--mix full|direct|judge]

import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { tinyArithProblems, tinyJudgeProblems, tinySpecs } from '../../src/data/tiny-task/dataset.ts';
import { renderPlan } from '../../src/data/tiny-task/text.ts';
import { LEVELS } from '../../src/data/tiny-task/generator.ts';
import { supervisedExample } from '../../src/data/tiny-task/sft.ts';
import type { ChatMessage, ChatTokenizer } from '../../src/data/tokenizer.ts';
import type { Backend } from '../../src/engine/backend.ts';
import type { Policy } from '../../src/engine/policy/policy.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { createEnginePolicy, type EnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import { deserializeModelWeights } from '../../src/engine/io/hf-model.ts';
import { Rng } from '../../src/util/rng.ts';
import { TINY_MODEL_DIR } from './build-tokenizer.ts';
import { writeModelCard, type StageRecord } from './model-card.ts';
import { initTinyWeights, parameterCount, tinyConfigJson, tinyModelConfig, type TinyShape } from './model-init.ts';
import {
  drawDirectAnswer,
  drawExample,
  drawJudgeExample,
  JUDGE_MIX,
  PRETRAIN_MIX,
  type MixtureShares,
} from './mixture.ts';
import { judgeEval, JUDGE_EVAL_SET, JUDGE_REGRESSION_SAMPLE } from './judge-eval.ts';
import { DEFAULT_MIX, FINISH } from '../../src/data/tiny-task/traces.ts';
import { JUDGE_CHECK_PLAN } from '../../src/data/tiny-task/judge.ts';
import { accuracyByLevel, greedyEpisodes, greedyEvalPolicy, TINY_EVAL_CAPS } from './rollout.ts';
import { REGRESSION_SAMPLE } from './regression-sample.ts';

const { values: args } = parseArgs({
  options: {
    steps: { type: 'string', default: '1200' },
    batch: { type: 'string', default: '16' },
    lr: { type: 'string', default: '3e-3' },
    seed: { type: 'string', default: '1' },
    backend: { type: 'string', default: 'wasm' },
    hidden: { type: 'string', default: '64' },
    layers: { type: 'string', default: '3' },
    heads: { type: 'string', default: '4' },
    'kv-heads': { type: 'string', default: '2' },
    intermediate: { type: 'string', default: '176' },
    'eval-every': { type: 'string', default: '150' },
    'eval-size': { type: 'string', default: '300' },
    out: { type: 'string', default: TINY_MODEL_DIR },
    /** stop after this many steps of the --steps schedule (a stage cut short on purpose); default: all */
    'stop-after': { type: 'string' },
    /** continue from a finished run's folder (its model.safetensors and training-log.json): a second stage with
     *  a fresh warm-up + cosine schedule and fresh data (use another --seed) */
    init: { type: 'string' },
    /** finish from a checkpoint folder written during a run (<out>/checkpoint): no training, evals and files only */
    'finalize-from': { type: 'string' },
    /** share of multi-turn dialogues whose plan reads every loss as a gain (a systematic plan flaw); default 0 */
    misread: { type: 'string', default: '0' },
    /** full: the mixture above (default); direct: questions and boxed answers only, no dialogue or chain of
     *  thought (the base of the SFT ablation, scripts/sft-ablation); judge: one-round judge dialogues with a
     *  shortcut-or-check plan and some of the full mixture (public/models/tiny-rema-judge, from tiny-rema) */
    mix: { type: 'string', default: 'full' },
  },
});

const steps = Number(args.steps);
const batch = Number(args.batch);
const lr = Number(args.lr);
const seed = Number(args.seed);
const evalEvery = Number(args['eval-every']);
const evalSize = Number(args['eval-size']);
const outDir = args.out!;
const misread = Number(args.misread);
const mixture: MixtureShares = misread > 0 ? { ...PRETRAIN_MIX, traces: { ...DEFAULT_MIX, misread } } : PRETRAIN_MIX;
if (args.mix !== 'full' && args.mix !== 'direct' && args.mix !== 'judge')
  throw new Error(`--mix must be full, direct or judge, got ${args.mix}`);
const judgeMix = args.mix === 'judge';
const draw = (rng: Rng) =>
  args.mix === 'direct' ? drawDirectAnswer(rng) : judgeMix ? drawJudgeExample(rng) : drawExample(rng, mixture);
const shape: TinyShape = {
  hidden: Number(args.hidden),
  layers: Number(args.layers),
  heads: Number(args.heads),
  kvHeads: Number(args['kv-heads']),
  intermediate: Number(args.intermediate),
  vocab: 256,
  context: 256,
};

async function makeBackend(kind: string): Promise<Backend> {
  if (kind === 'cpu') return new CpuBackend();
  if (kind === 'wasm') return WasmBackend.create();
  throw new Error(`--backend must be cpu or wasm, got ${kind}`);
}

const readModelJson = (f: string) => JSON.parse(readFileSync(join(TINY_MODEL_DIR, f), 'utf8')) as object;

function loadTokenizer(): ChatTokenizer {
  return createHfTokenizer(readModelJson('tokenizer.json'), readModelJson('tokenizer_config.json'), {
    where: TINY_MODEL_DIR,
  });
}

async function evaluate(policy: Policy, tok: ChatTokenizer, size: number, contextLength: number) {
  const perLevel = Math.ceil(size / 3);
  const opts = { split: 'heldout' as const, count: perLevel * 3, seed: 12345 };
  const problems = tinyArithProblems(opts);
  const goldPlans = tinySpecs(opts).map((spec) => renderPlan(spec.steps));
  const t0 = performance.now();
  const episodes = await greedyEpisodes(policy, tok, problems, 'full', contextLength);
  const acc = accuracyByLevel(episodes);
  const finished = episodes.filter((e) => e.finished).length / episodes.length;
  // the first plan against the gold plan: how much of the error is planning and how much computing
  const plans = { exact: 0, exactAndCorrect: 0, empty: 0 };
  episodes.forEach((e, i) => {
    const plan = e.turns[0]?.meta ?? '';
    if (plan === goldPlans[i]) {
      plans.exact++;
      if (e.correct) plans.exactAndCorrect++;
    }
    if (plan.trim() === '') plans.empty++;
  });
  return { acc, finished, plans, seconds: (performance.now() - t0) / 1000, episodes };
}

function pct(r: { correct: number; total: number } | undefined): string {
  return r ? `${((100 * r.correct) / r.total).toFixed(1)}%` : '-';
}

async function main(): Promise<void> {
  const tok = loadTokenizer();
  if (tok.vocabSize !== shape.vocab) throw new Error(`tokenizer vocab ${tok.vocabSize} != model vocab ${shape.vocab}`);
  const config = tinyModelConfig(shape);
  const weights = initTinyWeights(config, seed);
  const backend = await makeBackend(args.backend!);
  const policy = createEnginePolicy({
    backend,
    config,
    weights,
    decoder: tok,
    training: { mode: 'full', adapters: ['full'] },
    optimizer: {
      lr,
      beta1: 0.9,
      beta2: 0.98,
      eps: 1e-8,
      weightDecay: 0.1,
      gradClip: 1,
      schedule: {
        kind: 'warmup-cosine',
        warmupSteps: Math.min(50, Math.ceil(steps / 10)),
        totalSteps: steps,
        minLrRatio: 0.1,
      },
    },
    seed,
  });
  const params = parameterCount(weights);
  console.log(
    `tiny-rema: Llama d${shape.hidden} L${shape.layers} H${shape.heads}/${shape.kvHeads} F${shape.intermediate} V${shape.vocab}, ` +
      `${params} parameters, backend ${backend.kind}; ${steps} steps x ${batch} chats, lr ${lr}, seed ${seed}`,
  );

  const rng = new Rng(seed * 7919 + 17);
  let log: Array<Record<string, unknown>> = [];
  let tokensSeen = 0;
  let targetsSeen = 0;
  let trainSeconds = 0;
  let stepsDone = steps;
  let previousStages: StageRecord[] = [];
  if (args.init) {
    const dir = args.init;
    await policy.loadAdapter('full', {
      'model.safetensors': new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
    });
    // a finished run's training-log.json, or a mid-run checkpoint's progress.json
    const prev = (
      existsSync(join(dir, 'training-log.json'))
        ? JSON.parse(readFileSync(join(dir, 'training-log.json'), 'utf8'))
        : checkpointAsRecord(JSON.parse(readFileSync(join(dir, 'progress.json'), 'utf8')) as CheckpointProgress)
    ) as StageRecord & { previousStages?: StageRecord[]; finalEval: unknown };
    previousStages = [
      ...(prev.previousStages ?? []),
      {
        args: prev.args,
        tokensSeen: prev.tokensSeen,
        targetTokensSeen: prev.targetTokensSeen,
        trainSeconds: prev.trainSeconds,
        finalEval: prev.finalEval,
      },
    ];
    console.log(`continuing from ${dir} (${previousStages.length} earlier stage(s))`);
  }
  if (args['finalize-from']) {
    const dir = args['finalize-from'];
    await policy.loadAdapter('full', {
      'model.safetensors': new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
    });
    const progress = JSON.parse(readFileSync(join(dir, 'progress.json'), 'utf8')) as CheckpointProgress;
    ({ tokensSeen, targetsSeen, trainSeconds, log } = progress);
    stepsDone = progress.step;
    console.log(`finalizing from ${dir} (step ${stepsDone} of the run)`);
  }
  let lossSum = 0;
  let lossCount = 0;
  const lastStep = Math.min(steps, Number(args['stop-after'] ?? steps));
  if (lastStep < steps) stepsDone = lastStep;
  for (let step = 1; step <= lastStep && !args['finalize-from']; step++) {
    const t0 = performance.now();
    const chats: { messages: ChatMessage[] }[] = [];
    while (chats.length < batch) chats.push(...draw(rng));
    // a judge-mix chat longer than the context (a few of the longest L3 items) is dropped, not cut
    const examples = chats
      .map((c) => supervisedExample(tok, c.messages))
      .filter((e) => !judgeMix || e.tokens.length <= shape.context);
    const n = examples.reduce((s, e) => s + e.targets.length, 0);
    policy.zeroGrad('full');
    const results = await policy.accumulateGradients(
      examples.map((e) => ({
        tokens: e.tokens,
        positions: e.targets,
        adapter: 'full',
        coef: new Float32Array(e.targets.length).fill(-1 / n),
      })),
    );
    await policy.optimizerStep('full');
    const { gradNorm, lr: stepLr } = (await policy.readOptimizerStats('full')).at(-1)!;
    trainSeconds += (performance.now() - t0) / 1000;
    const nll = -results.reduce((s, r) => s + r.logprobs.reduce((a, b) => a + b, 0), 0) / n;
    lossSum += nll;
    lossCount++;
    tokensSeen += examples.reduce((s, e) => s + e.tokens.length, 0);
    targetsSeen += n;
    if (step % 10 === 0 || step === 1) {
      console.log(
        `step ${step}/${steps} loss ${(lossSum / lossCount).toFixed(4)} grad ${gradNorm.toFixed(2)} lr ${stepLr.toExponential(2)} ` +
          `tokens ${(tokensSeen / 1e6).toFixed(2)}M (${(tokensSeen / trainSeconds).toFixed(0)} tok/s) train ${trainSeconds.toFixed(0)} s`,
      );
      log.push({ step, loss: lossSum / lossCount, gradNorm, lr: stepLr, tokens: tokensSeen, trainSeconds });
      lossSum = 0;
      lossCount = 0;
    }
    if (step % evalEvery === 0 && step < steps && judgeMix) {
      const ev = await judgeEval(policy, tok, 60, config.maxPositionEmbeddings);
      console.log(`  judge eval@${step} (60 held-out, greedy): ${JSON.stringify(ev.summary)}`);
      log.push({ step, judgeEval: ev.summary });
      await saveCheckpoint(policy, {
        args: { scheduledSteps: steps, batch, lr, seed, backend: backend.kind, shape, init: args.init ?? null },
        step,
        tokensSeen,
        targetsSeen,
        trainSeconds,
        log,
      });
    } else if (step % evalEvery === 0 && step < steps) {
      const ev = await evaluate(policy, tok, 60, config.maxPositionEmbeddings);
      console.log(
        `  eval@${step} (60 held-out, greedy): acc ${pct(ev.acc.all)} L1 ${pct(ev.acc.L1)} L2 ${pct(ev.acc.L2)} L3 ${pct(ev.acc.L3)} ` +
          `finished ${(100 * ev.finished).toFixed(0)}% (${ev.seconds.toFixed(0)} s)`,
      );
      log.push({ step, evalAccuracy: ev.acc, finished: ev.finished });
      await saveCheckpoint(policy, {
        args: { scheduledSteps: steps, batch, lr, seed, backend: backend.kind, shape, init: args.init ?? null },
        step,
        tokensSeen,
        targetsSeen,
        trainSeconds,
        log,
      });
    }
  }

  // Evaluate on the plain-SIMD WebAssembly backend, the variant every Node runtime has (tests run there too),
  // so the recorded numbers are reproducible by tests/models/tiny-model.test.ts.
  const files = await policy.saveAdapter('full');
  const evalPolicy = await greedyEvalPolicy(
    config,
    deserializeModelWeights(files['model.safetensors'], config),
    tok,
    seed,
  );
  const final = await evaluate(evalPolicy, tok, evalSize, config.maxPositionEmbeddings);
  console.log(
    `final eval (${final.episodes.length} held-out, greedy multi-turn): acc ${pct(final.acc.all)} L1 ${pct(final.acc.L1)} ` +
      `L2 ${pct(final.acc.L2)} L3 ${pct(final.acc.L3)}; finished ${(100 * final.finished).toFixed(0)}%; ` +
      `first plan = gold plan ${final.plans.exact} (${final.plans.exactAndCorrect} of them solved), empty ${final.plans.empty}`,
  );
  for (const e of final.episodes.slice(0, 3))
    console.log(JSON.stringify({ q: e.problem.question, turns: e.turns, gold: e.problem.answer }));
  const judgeEpisodes = await greedyEpisodes(
    evalPolicy,
    tok,
    tinyJudgeProblems(JUDGE_EVAL_SET),
    'full',
    config.maxPositionEmbeddings,
  );
  const judgeAcc = accuracyByLevel(judgeEpisodes);
  console.log(
    `judge task (90 held-out, greedy multi-turn): acc ${pct(judgeAcc.all)} L1 ${pct(judgeAcc.L1)} L2 ${pct(judgeAcc.L2)} L3 ${pct(judgeAcc.L3)}`,
  );
  const judgeDetail = judgeMix ? (await judgeEval(evalPolicy, tok, 90, config.maxPositionEmbeddings)).summary : null;
  if (judgeDetail) console.log(`judge detail: ${JSON.stringify(judgeDetail)}`);
  const judgeRegression = judgeMix
    ? await greedyEpisodes(evalPolicy, tok, JUDGE_REGRESSION_SAMPLE(), 'full', config.maxPositionEmbeddings)
    : null;
  const judgeRegressionChecked = judgeMix
    ? await greedyEpisodes(
        evalPolicy,
        tok,
        JUDGE_REGRESSION_SAMPLE(),
        'full',
        config.maxPositionEmbeddings,
        undefined,
        `${JUDGE_CHECK_PLAN} ${FINISH}`,
      )
    : null;
  if (judgeRegression)
    console.log(
      `judge regression sample: ${judgeRegression.filter((e) => e.correct).length}/${judgeRegression.length}`,
    );
  const regression = await greedyEpisodes(evalPolicy, tok, REGRESSION_SAMPLE(), 'full', config.maxPositionEmbeddings);
  const regressionCorrect = regression.filter((e) => e.correct).length;
  console.log(`regression sample: ${regressionCorrect}/${regression.length} correct`);

  mkdirSync(outDir, { recursive: true });
  if (outDir !== TINY_MODEL_DIR)
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(TINY_MODEL_DIR, f), join(outDir, f));
  writeFileSync(join(outDir, 'model.safetensors'), files['model.safetensors']);
  writeFileSync(join(outDir, 'config.json'), `${JSON.stringify(tinyConfigJson(shape), null, 2)}\n`);
  writeFileSync(
    join(outDir, 'generation_config.json'),
    `${JSON.stringify({ bos_token_id: 0, eos_token_id: [2, 0], pad_token_id: 0, do_sample: false }, null, 2)}\n`,
  );
  const record = {
    args: {
      steps: stepsDone,
      scheduledSteps: steps,
      batch,
      lr,
      seed,
      misread,
      mix: args.mix,
      backend: backend.kind,
      shape,
      init: args.init ?? null,
    },
    previousStages,
    parameters: params,
    mixture: judgeMix ? JUDGE_MIX : mixture,
    levels: LEVELS,
    tokensSeen,
    targetTokensSeen: targetsSeen,
    trainSeconds,
    finalEval: {
      size: final.episodes.length,
      accuracy: final.acc,
      finished: final.finished,
      plans: final.plans,
      caps: TINY_EVAL_CAPS,
    },
    judgeEval: { size: judgeEpisodes.length, accuracy: judgeAcc, ...(judgeDetail ? { detail: judgeDetail } : {}) },
    regression: {
      size: regression.length,
      correct: regressionCorrect,
      correctIds: regression.filter((e) => e.correct).map((e) => e.problem.id),
    },
    ...(judgeRegression
      ? {
          judgeRegression: {
            size: judgeRegression.length,
            correct: judgeRegression.filter((e) => e.correct).length,
            correctIds: judgeRegression.filter((e) => e.correct).map((e) => e.problem.id),
            forcedCheck: judgeRegressionChecked!.filter((e) => e.correct).length,
          },
        }
      : {}),
    log,
  };
  writeFileSync(join(outDir, 'training-log.json'), `${JSON.stringify(record, null, 1)}\n`);
  // the judge model's card also reports RL runs: scripts/tiny/judge-card.ts writes it from this log and the runs
  if (!judgeMix) writeModelCard(outDir, { ...record, mixture });
  console.log(`wrote ${outDir}`);
}

interface CheckpointProgress {
  args: Record<string, unknown>;
  step: number;
  tokensSeen: number;
  targetsSeen: number;
  trainSeconds: number;
  log: Array<Record<string, unknown>>;
}

/** A mid-run checkpoint described like a finished stage (its last in-run eval stands in for a final eval). */
function checkpointAsRecord(p: CheckpointProgress): Record<string, unknown> {
  const lastEval = p.log.toReversed().find((e) => 'evalAccuracy' in e) ?? null;
  return {
    args: { ...p.args, steps: p.step, note: 'stopped at this checkpoint' },
    tokensSeen: p.tokensSeen,
    targetTokensSeen: p.targetsSeen,
    trainSeconds: p.trainSeconds,
    finalEval: lastEval,
  };
}

/** Weights and progress at an eval step, so a run cut short can still be finalized (--finalize-from). */
async function saveCheckpoint(policy: EnginePolicy, progress: CheckpointProgress): Promise<void> {
  const dir = join(outDir, 'checkpoint');
  mkdirSync(dir, { recursive: true });
  const files = await policy.saveAdapter('full');
  writeFileSync(join(dir, 'model.safetensors'), files['model.safetensors']);
  writeFileSync(join(dir, 'progress.json'), JSON.stringify(progress));
}

await main();
