// Reading a `rema train` run folder's logs for the report scripts: metrics.jsonl, eval.jsonl and eval_rollouts.jsonl
// as records (a torn last line, from a killed run, is skipped).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentConfig } from '../../src/rl/config.ts';
import type { MetricsRecord } from '../../src/rl/metrics.ts';

export interface EvalLine {
  step: number;
  accuracy: number;
  n: number;
  time_s?: number;
}

export interface EvalRollout {
  step: number;
  question: string;
  turns: { role: string; text: string }[];
  correct: boolean;
}

export function readJsonl<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as T];
      } catch {
        return [];
      }
    });
}

export const readMetrics = (dir: string) => readJsonl<MetricsRecord>(join(dir, 'metrics.jsonl'));
export const readEvals = (dir: string) => readJsonl<EvalLine>(join(dir, 'eval.jsonl'));
export const readEvalRollouts = (dir: string) => readJsonl<EvalRollout>(join(dir, 'eval_rollouts.jsonl'));

/** One run folder of an experiment laid out as <root>/<group>/seed-<s>: its group (variant, setting), its
 *  folder, config.json and metrics. */
export interface SeedRun<G extends string = string> {
  group: G;
  dir: string;
  config: ExperimentConfig;
  metrics: MetricsRecord[];
}

/** Every <root>/<group>/seed-<s> folder that has a config.json, groups in the order given, seeds in directory order. */
export function seedRuns<G extends string>(root: string, groups: readonly G[]): SeedRun<G>[] {
  return groups.flatMap((group) => {
    const base = join(root, group);
    if (!existsSync(base)) return [];
    return readdirSync(base)
      .filter((d) => /^seed-\d+$/.test(d) && existsSync(join(base, d, 'config.json')))
      .map((d) => {
        const dir = join(base, d);
        const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as ExperimentConfig;
        return { group, dir, config, metrics: readMetrics(dir) };
      });
  });
}

/** x rounded to `d` decimals (summaries stay small and diff well) */
export const round = (x: number, d = 4): number => Number(x.toFixed(d));
