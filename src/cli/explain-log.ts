// explain.jsonl of `rema train --explain`: one "explain this step" record (rl/train/explain.ts) per step. A resumed
// run keeps the lines of the steps its checkpoint covers and drops later ones (a killed run may have written them
// before its checkpoint), so the file ends as an uninterrupted run's.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { replaceFile } from './run-files.ts';

/** Keeps the lines of steps 1..step; a line that is not a record with a step is refused, naming the file and line. */
export async function trimExplainLog(path: string, step: number): Promise<void> {
  if (!existsSync(path)) return;
  const kept: string[] = [];
  const lines = (await readFile(path, 'utf8')).split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let at: unknown;
    try {
      at = (JSON.parse(line) as { step?: unknown }).step;
    } catch {
      // the last line of a killed run may be cut off: it is after the checkpoint, so it goes
      if (i >= lines.length - 2) return;
      throw new Error(`${path}:${i + 1}: not a JSON line`);
    }
    if (typeof at !== 'number') throw new Error(`${path}:${i + 1}: field "step" is missing`);
    if (at <= step) kept.push(line);
  });
  await replaceFile(path, kept.map((l) => l + '\n').join(''));
}
