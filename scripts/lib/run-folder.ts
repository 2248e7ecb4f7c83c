// Reading a `rema train` run folder's logs for the report scripts: metrics.jsonl, eval.jsonl and eval_rollouts.jsonl
// as records (a torn last line, from a killed run, is skipped).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** x rounded to `d` decimals (summaries stay small and diff well) */
export const round = (x: number, d = 4): number => Number(x.toFixed(d));
