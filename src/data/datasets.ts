// Problem sets from JSONL files, validated line by line. Accepts the layouts of the ReMA code's data/ folder and of
// user files:
//   - ReMA / verl rows: {"question", "reward_model": {"ground_truth"}, "type"?, "level"?: "Level 3" | 3, ...}
//   - minimal rows:     {"question", "answer"}  (also "gold" or "ground_truth"; numbers allowed)
//   - judge rows:       {"question", "answer": "A" | "B", "task": "judge"}  (one rendered question)
//   - judge pairs (RewardBench970 after the paper's pairwise conversion, JudgeBench), read as judge problems with
//     their parts, so that the paper's prompts show the meta-thinking agent only the instruction:
//       {"instruction", "response_a", "response_b", "label": "A" | "B", "id"?, "subset"?}
//       JudgeBench's own rows: {"question", "response_A", "response_B", "label": "A>B" | "B>A", "pair_id"?, "source"?}
//     "label" names the better response. A JudgeBench tie ("A=B") is refused (the task has no tie verdict).
// The agents see `question` (never the verl `prompt` column with its "Let's think step by step" suffix).
// A bad line throws a DataFormatError naming the file, the line and the field.

import type { FileSource } from '../util/file-source.ts';
import { DataFormatError, parseJsonl } from './jsonl.ts';
import type { JudgePair, Problem } from './problem.ts';

/** The problem sets shipped under public/data (MIT-licensed; see public/data/README.md). */
export const SHIPPED_DATASETS = {
  math133: 'math_train_minimal_all_types_133.jsonl',
  math500: 'math500_test.jsonl',
  gsm8k: 'gsm8k.jsonl',
} as const;

/** Where the sets below are published: the ReMA code release's data/ folder, which converted them from their
 *  original sources into this JSONL layout (same file names). */
export const DATA_DIR_ORIGIN = 'https://github.com/ziyuwan/ReMA-public/tree/24b5b47/data';

/**
 * Sets the repository does not ship (competition problems without an open licence, or a large training set),
 * read from a folder the user downloads them into (the command line's --data-dir or REMA_DATA_DIR): the file's
 * path inside that folder and what it is.
 */
export const DATA_DIR_DATASETS = {
  math8k: { file: 'math_train_lv3to5_8k.min.jsonl', what: 'MATH levels 3-5 training set, 8,523 problems; MIT licence' },
  aime24: { file: 'eval/aime24.jsonl', what: 'AIME 2024, 30 problems; evaluation use only' },
  aime25: { file: 'eval/aime25.jsonl', what: 'AIME 2025, 30 problems; evaluation use only' },
  amc23: { file: 'eval/amc23.jsonl', what: 'AMC 2023, 40 problems; evaluation use only' },
  gaokao2023en: { file: 'eval/gaokao2023en.jsonl', what: 'Gaokao 2023 (English), 385 problems; evaluation use only' },
  minerva_math: { file: 'eval/minerva_math.jsonl', what: 'Minerva MATH, 272 problems; evaluation use only' },
  olympiadbench: { file: 'eval/olympiadbench.jsonl', what: 'OlympiadBench, 675 problems; evaluation use only' },
} as const;

export type DataDirDataset = keyof typeof DATA_DIR_DATASETS;

export function isDataDirDataset(name: string): name is DataDirDataset {
  return Object.hasOwn(DATA_DIR_DATASETS, name);
}

function answerOf(row: Record<string, unknown>): unknown {
  const rm = row.reward_model;
  if (typeof rm === 'object' && rm !== null && 'ground_truth' in rm)
    return (rm as { ground_truth: unknown }).ground_truth;
  return row.answer ?? row.gold ?? row.ground_truth;
}

function idOf(row: Record<string, unknown>, name: string, line: number): string {
  if (typeof row.id === 'string' && row.id !== '') return row.id;
  if (typeof row.pair_id === 'string' && row.pair_id !== '') return row.pair_id;
  if (typeof row.unique_id === 'string' && row.unique_id !== '') return row.unique_id;
  return `${name}:${line}`;
}

/** The judge-pair layouts: our field names, then JudgeBench's. */
const PAIR_FIELDS = [
  { instruction: 'instruction', a: 'response_a', b: 'response_b' },
  { instruction: 'question', a: 'response_A', b: 'response_B' },
] as const;

/** The shown text of a judge pair (what a single rendered judge question carries). */
export function renderJudgePair(p: JudgePair): string {
  return (
    `[User Question]\n${p.instruction}\n[End of User Question]\n` +
    `[The Start of Assistant A's Answer]\n${p.responseA}\n[The End of Assistant A's Answer]\n` +
    `[The Start of Assistant B's Answer]\n${p.responseB}\n[The End of Assistant B's Answer]`
  );
}

/** A judge-pair row (see the header) as a judge Problem, or null when the row is not one. */
function judgePairFromRecord(row: Record<string, unknown>, where: string, id: string): Problem | null {
  const fields = PAIR_FIELDS.find((f) => f.a in row || f.b in row);
  if (!fields) return null;
  const text = (field: string): string => {
    const v = row[field];
    if (typeof v !== 'string' || v.trim() === '')
      throw new DataFormatError(`${where}: field "${field}" must be a non-empty string`);
    return v;
  };
  const pair: JudgePair = {
    instruction: text(fields.instruction),
    responseA: text(fields.a),
    responseB: text(fields.b),
  };
  const label = row.label;
  const answer = label === 'A' || label === 'A>B' ? 'A' : label === 'B' || label === 'B>A' ? 'B' : null;
  if (answer === null)
    throw new DataFormatError(
      `${where}: field "label" must name the better response: "A" or "B" (JudgeBench: "A>B" or "B>A"), got ${JSON.stringify(label)}`,
    );
  const problem: Problem = { id, task: 'judge', question: renderJudgePair(pair), answer, judge: pair };
  const subset = row.subset ?? row.source;
  if (typeof subset === 'string' && subset !== '') problem.subject = subset;
  return problem;
}

/** One JSONL record as a Problem; `where` (e.g. "file.jsonl:12") prefixes every error. */
export function problemFromRecord(value: unknown, where: string, id: string): Problem {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new DataFormatError(`${where}: expected a JSON object, got ${JSON.stringify(value)}`);
  const row = value as Record<string, unknown>;
  const pair = judgePairFromRecord(row, where, id);
  if (pair) return pair;
  if (typeof row.question !== 'string' || row.question.trim() === '')
    throw new DataFormatError(`${where}: field "question" must be a non-empty string`);
  const rawAnswer = answerOf(row);
  if (typeof rawAnswer !== 'string' && typeof rawAnswer !== 'number')
    throw new DataFormatError(
      `${where}: missing answer: give "reward_model.ground_truth" or "answer" (a string or number)`,
    );
  const answer = String(rawAnswer).trim();
  if (answer === '') throw new DataFormatError(`${where}: the answer is empty`);
  const task = row.task === undefined ? 'math' : row.task;
  if (task !== 'math' && task !== 'judge')
    throw new DataFormatError(`${where}: field "task" must be "math" or "judge", got ${JSON.stringify(row.task)}`);
  if (task === 'judge' && answer !== 'A' && answer !== 'B')
    throw new DataFormatError(`${where}: a judge problem's answer must be "A" or "B", got ${JSON.stringify(answer)}`);
  const problem: Problem = { id, task, question: row.question, answer };
  const level = row.level;
  if (typeof level === 'number') problem.level = `Level ${level}`;
  else if (typeof level === 'string' && level !== '') problem.level = level;
  const subject = row.type ?? row.subject;
  if (typeof subject === 'string' && subject !== '') problem.subject = subject;
  return problem;
}

/** Parse a whole JSONL file of problems; ids must be unique. */
export function parseProblems(text: string, file: string): Problem[] {
  const name = file
    .split(/[\\/]/)
    .pop()!
    .replace(/\.jsonl$/, '');
  const rows = parseJsonl(text, file);
  if (rows.length === 0) throw new DataFormatError(`${file}: no problems (the file is empty)`);
  const seen = new Map<string, number>();
  return rows.map(({ line, value }) => {
    const where = `${file}:${line}`;
    const row = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    const problem = problemFromRecord(value, where, idOf(row, name, line));
    const before = seen.get(problem.id);
    if (before !== undefined) throw new DataFormatError(`${where}: id "${problem.id}" repeats line ${before}`);
    seen.set(problem.id, line);
    return problem;
  });
}

/** Read and parse `path` from a FileSource (a folder on disk, public/data over HTTP, ...). */
export async function loadProblems(source: FileSource, path: string): Promise<Problem[]> {
  const bytes = await source.read(path);
  if (bytes === null) throw new DataFormatError(`${source.name}/${path}: file not found`);
  return parseProblems(new TextDecoder().decode(bytes), `${source.name}/${path}`);
}
