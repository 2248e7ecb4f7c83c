// Core of `rema verify --in F.jsonl [--out G.jsonl]`: reads lines {"gold": answer, "pred": full response} and
// writes one line per input line, in order, {"verdict": true|false, "extracted": answer|null, "reason": ...}.
// The gold is read as \boxed{gold}, as ReMA's reward code does (see src/rl/verifier). Every input line is
// validated before anything is written; a bad line throws an error naming the file and line number. Each check
// runs in a worker thread with a hard wall-clock limit (checker-node.ts): an answer whose evaluation would run
// for minutes gets {"verdict": false, "reason": "timeout"} and the next line goes on.

import { writeFile } from 'node:fs/promises';
import { checkAll, type AnswerChecker } from '../rl/verifier/checker.ts';
import { nodeAnswerChecker } from './checker-node.ts';
import { readText } from './read-text.ts';

export interface VerifyRecord {
  verdict: boolean;
  extracted: string | null;
  reason: string;
}

export interface VerifySummary {
  total: number;
  correct: number;
}

interface VerifyInput {
  gold: string;
  pred: string;
}

/** Parse and validate JSONL text; `source` names the file in error messages. */
export function parseVerifyInput(text: string, source: string): VerifyInput[] {
  const rows: VerifyInput[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `${source}:${i + 1}`;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      throw new Error(`${where}: not valid JSON (${e instanceof Error ? e.message : String(e)})`, { cause: e });
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
      throw new Error(`${where}: expected an object {"gold", "pred"}`);
    const { gold, pred } = obj as Record<string, unknown>;
    if (typeof gold !== 'string' && typeof gold !== 'number')
      throw new Error(`${where}: field "gold" must be a string or a number`);
    if (typeof pred !== 'string') throw new Error(`${where}: field "pred" must be a string`);
    rows.push({ gold: String(gold), pred });
  }
  return rows;
}

/** Verify parsed rows through `checker`, one record per row, in order. */
export async function verifyRows(rows: readonly VerifyInput[], checker: AnswerChecker): Promise<VerifyRecord[]> {
  const results = await checkAll(
    checker,
    rows.map(({ gold, pred }) => ({ gold, prediction: pred })),
  );
  return results.map((r) => ({ verdict: r.correct, extracted: r.extracted, reason: r.reason }));
}

/**
 * Read `inPath`, verify every line, write the results as JSONL to `outPath` (or to stdout when absent).
 * `limitMs` is the hard wall-clock limit of one check (default: the checker's, 3 s).
 * Returns how many lines were checked and how many were correct.
 */
export async function runVerify(
  inPath: string,
  outPath?: string,
  opts: { limitMs?: number } = {},
): Promise<VerifySummary> {
  let text: string;
  try {
    text = await readText(inPath);
  } catch (e) {
    throw new Error(`${inPath}: cannot read (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  const rows = parseVerifyInput(text, inPath);
  const checker = nodeAnswerChecker(opts.limitMs === undefined ? {} : { limitMs: opts.limitMs });
  let records: VerifyRecord[];
  try {
    records = await verifyRows(rows, checker);
  } finally {
    checker.close();
  }
  const out = records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : '');
  if (outPath) await writeFile(outPath, out, 'utf8');
  else process.stdout.write(out);
  return { total: records.length, correct: records.filter((r) => r.verdict).length };
}
