// `rema eval`: greedy pass@1 of a config's protocol and model (optionally with a training checkpoint's adapters)
// on named benchmarks (the shipped sets, ../shared/data/eval, the tiny tasks) or users' JSONL files, with a
// progress bar; prints a table and writes a JSON summary plus every transcript when --out is given.

import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { loadProblems, SHARED_DATASETS, SHIPPED_DATASETS } from '../data/datasets.ts';
import type { Problem } from '../data/problem.ts';
import { tinyArithProblems, tinyJudgeProblems } from '../data/tiny-task/dataset.ts';
import type { ExperimentConfig } from '../rl/config.ts';
import type { RolloutRecord } from '../rl/metrics.ts';
import { subset, TINY_DATA_SEED, TINY_DEFAULT_HELDOUT } from '../rl/problems.ts';
import { createTrainer } from '../rl/trainer.ts';
import { loadCheckpointAdapters, readLatestCheckpoint } from './checkpoint.ts';
import { directoryFileSource } from './fs-source.ts';
import { loadModel, PUBLIC_DATA, sharedDataDir, userFile, type BackendKind } from './setup.ts';

export const BENCHMARKS = [...new Set([...Object.keys(SHIPPED_DATASETS), ...Object.keys(SHARED_DATASETS), 'tiny-arith', 'tiny-judge'])];

export interface EvalOptions {
  config: ExperimentConfig;
  backend: BackendKind;
  benchmarks: string[];
  files: string[];
  /** at most this many problems per benchmark (a seeded subset); 0 = all */
  limit: number;
  /** a run folder (its checkpoints/latest) or a checkpoint folder whose adapters to load */
  checkpoint?: string;
  out?: string;
  progress?: boolean;
  /** problems evaluated per batch */
  chunk?: number;
}

export interface BenchmarkResult {
  benchmark: string;
  n: number;
  accuracy: number;
  by_level: Record<string, { n: number; accuracy: number }>;
  time_s: number;
}

async function benchmarkProblems(name: string): Promise<Problem[]> {
  if (name === 'tiny-arith') return tinyArithProblems({ split: 'heldout', count: TINY_DEFAULT_HELDOUT, seed: TINY_DATA_SEED });
  if (name === 'tiny-judge') return tinyJudgeProblems({ split: 'heldout', count: TINY_DEFAULT_HELDOUT, seed: TINY_DATA_SEED });
  if (name in SHIPPED_DATASETS) return loadProblems(directoryFileSource(PUBLIC_DATA, 'public/data'), SHIPPED_DATASETS[name as keyof typeof SHIPPED_DATASETS]);
  if (name in SHARED_DATASETS) {
    const dir = sharedDataDir();
    if (!existsSync(dir)) throw new Error(`benchmark "${name}" is read from ${dir}, which does not exist (set REMA_SHARED_DATA)`);
    return loadProblems(directoryFileSource(dir, dir), SHARED_DATASETS[name as keyof typeof SHARED_DATASETS]);
  }
  throw new Error(`unknown benchmark "${name}"; known: ${BENCHMARKS.join(', ')} (or pass --file F.jsonl)`);
}

export async function runEval(opts: EvalOptions): Promise<BenchmarkResult[]> {
  const { config } = opts;
  const sets: { name: string; problems: Promise<Problem[]> }[] = [
    ...opts.benchmarks.map((b) => ({ name: b, problems: benchmarkProblems(b) })),
    ...opts.files.map((f) => {
      const { source, path } = userFile(f);
      return { name: basename(f).replace(/\.jsonl$/, ''), problems: loadProblems(source, path) };
    }),
  ];
  if (sets.length === 0) throw new Error('nothing to evaluate: give --benchmarks or --file');
  const { policy, tokenizer } = await loadModel(config, opts.backend);
  if (opts.checkpoint) {
    const latest = await readLatestCheckpoint(join(opts.checkpoint, 'checkpoints'));
    await loadCheckpointAdapters(latest ? latest.path : opts.checkpoint, policy);
  }
  const chunk = opts.chunk ?? 32;
  const results: BenchmarkResult[] = [];
  if (opts.out) await mkdir(opts.out, { recursive: true });
  for (const set of sets) {
    const problems = subset(await set.problems, opts.limit, 2);
    const bar = opts.progress ? new SingleBar({ format: ` ${set.name} {bar} {value}/{total} | acc {acc}`, stream: process.stderr }) : null;
    bar?.start(problems.length, 0, { acc: '-' });
    const t0 = Date.now();
    let correct = 0;
    const levels: Record<string, { n: number; correct: number }> = {};
    const transcripts: RolloutRecord[] = [];
    for (let i = 0; i < problems.length; i += chunk) {
      const part = problems.slice(i, i + chunk);
      const trainer = createTrainer({ config: { ...config, evalSize: 0 }, policy, tokenizer, train: part, eval: part });
      const r = await trainer.evaluate();
      r.rollouts.forEach((roll, j) => {
        const level = part[j].level ?? 'all';
        const l = (levels[level] ??= { n: 0, correct: 0 });
        l.n += 1;
        if (roll.correct) {
          l.correct += 1;
          correct += 1;
        }
        transcripts.push({ ...roll, group: i + j });
      });
      bar?.update(Math.min(i + chunk, problems.length), { acc: (correct / Math.min(i + chunk, problems.length)).toFixed(3) });
    }
    bar?.stop();
    const by_level = Object.fromEntries(Object.entries(levels).map(([k, v]) => [k, { n: v.n, accuracy: v.correct / v.n }]));
    const res = { benchmark: set.name, n: problems.length, accuracy: problems.length > 0 ? correct / problems.length : 0, by_level, time_s: (Date.now() - t0) / 1000 };
    results.push(res);
    if (opts.out) await writeFile(join(opts.out, `${set.name}_rollouts.jsonl`), transcripts.map((t) => JSON.stringify(t)).join('\n') + '\n');
  }
  policy.dispose();
  if (opts.out) await writeFile(join(opts.out, 'eval_summary.json'), JSON.stringify({ config: config.name, results }, null, 2) + '\n');
  return results;
}
