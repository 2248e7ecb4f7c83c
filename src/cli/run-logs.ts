// The JSONL logs of a run folder on resume: they must hold every step up to the checkpoint the run resumes from
// (metrics and rollouts of steps 1..k, every evaluation the metrics mark, with its transcripts). A log that lost
// lines (emptied by a kill or a full disk while it was written, edited, or deleted) refuses the resume, naming the
// file and the missing steps, rather than carrying on without its history. Lines after the checkpoint (written
// before a kill) are dropped through a temporary file and a rename, so the rewrite cannot lose the file either.

import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { nodeIo, replaceFile, writeNamed, type WriteIo } from './run-files.ts';

export interface RunLogs {
  metrics: string;
  rollouts: string;
  evals: string;
  evalRollouts: string;
}

interface LogLine {
  text: string;
  step: number;
  record: Record<string, unknown>;
}

/** The lines of a JSONL log with their step; a torn last line (a kill mid-write) is dropped, a bad line elsewhere is an error. */
async function readLog(path: string): Promise<{ lines: LogLine[]; torn: boolean }> {
  if (!existsSync(path)) return { lines: [], torn: false };
  const texts = (await readFile(path, 'utf8')).split('\n');
  const lines: LogLine[] = [];
  let torn = false;
  let last = texts.length - 1;
  while (last >= 0 && texts[last].trim() === '') last--;
  texts.forEach((text, i) => {
    if (text.trim() === '') return;
    let record: Record<string, unknown> | null = null;
    try {
      record = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // below
    }
    if (record === null || typeof record.step !== 'number') {
      if (i === last) {
        torn = true;
        return;
      }
      throw new Error(`${path}:${i + 1}: not a log record (JSON with a numeric "step"); the file is damaged`);
    }
    lines.push({ text, step: record.step, record });
  });
  return { lines, torn };
}

/** "3, 5-7" */
function ranges(steps: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < steps.length;) {
    let j = i;
    while (j + 1 < steps.length && steps[j + 1] === steps[j] + 1) j++;
    out.push(i === j ? `${steps[i]}` : `${steps[i]}-${steps[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

function missing(path: string, want: number[], have: Set<number>, step: number, checkpoint: string): void {
  const lost = want.filter((s) => !have.has(s));
  if (lost.length > 0)
    throw new Error(
      `${path}: no record of step${lost.length > 1 ? 's' : ''} ${ranges(lost)}, which the checkpoint ${checkpoint} (step ${step}) covers; ` +
        'the log lost its history (a kill or a full disk while it was written?). Restore the file, or start again in another --out',
    );
}

/**
 * Before a run resumes from `step` (0 = a fresh start): checks that the logs cover steps 1..step (and the
 * evaluations, with step 0's when `evalAtStart`), then drops what was logged after it.
 */
export async function prepareLogs(
  logs: RunLogs,
  step: number,
  checkpoint: string,
  evalAtStart: boolean,
  io: WriteIo = nodeIo,
): Promise<void> {
  if (step === 0) {
    for (const f of Object.values(logs)) await writeNamed(f, '', io);
    return;
  }
  const read = {
    metrics: await readLog(logs.metrics),
    rollouts: await readLog(logs.rollouts),
    evals: await readLog(logs.evals),
    evalRollouts: await readLog(logs.evalRollouts),
  };
  const upTo = Array.from({ length: step }, (_, i) => i + 1);
  const kept = (k: keyof RunLogs) => read[k].lines.filter((l) => l.step <= step);
  const metrics = kept('metrics');
  missing(logs.metrics, upTo, new Set(metrics.map((l) => l.step)), step, checkpoint);
  const seen = new Set<number>();
  for (const l of metrics) {
    if (seen.has(l.step))
      throw new Error(
        `${logs.metrics}: step ${l.step} is logged twice (two runs wrote this folder?); the log is not one run's history`,
      );
    seen.add(l.step);
  }
  missing(logs.rollouts, upTo, new Set(kept('rollouts').map((l) => l.step)), step, checkpoint);
  const evalSteps = [
    ...(evalAtStart ? [0] : []),
    ...metrics.filter((l) => l.record.eval_accuracy !== undefined).map((l) => l.step),
  ];
  missing(logs.evals, evalSteps, new Set(kept('evals').map((l) => l.step)), step, checkpoint);
  missing(logs.evalRollouts, evalSteps, new Set(kept('evalRollouts').map((l) => l.step)), step, checkpoint);
  for (const k of Object.keys(logs) as (keyof RunLogs)[]) {
    const lines = kept(k);
    if (lines.length === read[k].lines.length && !read[k].torn) continue;
    await replaceFile(logs[k], lines.map((l) => l.text + '\n').join(''), io);
  }
}

/**
 * The same for a run with one log of one record per step (`rema sft`'s metrics.jsonl): before resuming from `step`
 * (0 = a fresh start) it must hold steps 1..step once each; lines after them are dropped.
 */
export async function prepareStepLog(
  path: string,
  step: number,
  checkpoint: string,
  io: WriteIo = nodeIo,
): Promise<void> {
  if (step === 0) {
    await writeNamed(path, '', io);
    return;
  }
  const read = await readLog(path);
  const lines = read.lines.filter((l) => l.step <= step);
  missing(
    path,
    Array.from({ length: step }, (_, i) => i + 1),
    new Set(lines.map((l) => l.step)),
    step,
    checkpoint,
  );
  if (lines.length !== step)
    throw new Error(`${path}: a step is logged twice (two runs wrote this folder?); the log is not one run's history`);
  if (lines.length !== read.lines.length || read.torn)
    await replaceFile(path, lines.map((l) => l.text + '\n').join(''), io);
}
