// Answer extraction from a model response, with Math-Verify's priorities (parser.py, the configuration
// ReMA uses for predictions: ExprExtractionConfig + LatexExtractionConfig with boxed priority 50):
//   0   "final answer is $X$. I hope"                      (Minerva format)
//   50  the last \boxed{} / \fbox{} (boxes joined by `,`, `and`, `or` within 70 characters, as Math-Verify's
//       boxed="last" mode) and "final answer ... is X" - whichever ends later
//   100 "answer: X", 200 "answer ... X"                    (X a LaTeX environment or a number)
//   300 the last LaTeX environment ($..$, $$..$$, \(..\), \[..\]) or plain number in the text
// One stricter rule for RL rewards: once the response contains a \boxed, only priorities 0 and 50 are tried,
// so an empty or unparsable last box can not fall back to some number earlier in the text.

/** Longest response we look at; longer ones score 0 (a guard against pathological inputs). */
export const MAX_RESPONSE_CHARS = 100_000;
/** Anchor and environment regexes only scan this many trailing characters (bounded regex work). */
const TAIL_CHARS = 6_000;

export type AnswerSource = 'final-answer' | 'boxed' | 'answer-anchor' | 'latex-env' | 'plain-number';

export interface AnswerCandidate {
  /** Raw answer text (LaTeX or plain), before normalisation. */
  text: string;
  /** Where it came from, for the UI trace. */
  source: AnswerSource;
  /** A percent sign or word followed the answer (`\boxed{20}\%`, `$28$ percent`). */
  percent: boolean;
}

interface Box {
  start: number; // index of the backslash of \boxed
  end: number; // index one past the closing brace
  content: string;
}

/** Find the box whose command starts at `start`; brace matching handles nesting. Null for `\boxed` without an argument. */
function readBox(text: string, start: number, commandLength: number): Box | null {
  let i = start + commandLength;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  if (i >= text.length) return null;
  if (text[i] !== '{') {
    // `\boxed 5` form: the argument runs to the next space or `$`.
    if (i === start + commandLength) return null;
    let j = i;
    while (j < text.length && !/[\s$]/.test(text[j])) j++;
    return j > i ? { start, end: j, content: text.slice(i, j) } : null;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') {
      j++; // skip escaped character such as \{ or \}
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return { start, end: j + 1, content: text.slice(i + 1, j) };
    }
  }
  // Unclosed box: Math-Verify takes the rest of the text.
  return { start, end: text.length, content: text.slice(i + 1) };
}

/** All boxes from right to left (outermost only). */
function findBoxesFromRight(text: string, limit = 64): Box[] {
  const boxes: Box[] = [];
  let pos = text.length;
  // At most 4 * limit box commands are inspected, so nested or unclosed boxes can not make this quadratic.
  for (let steps = 0; boxes.length < limit && pos > 0 && steps < 4 * limit; steps++) {
    const b = text.lastIndexOf('\\boxed', pos - 1);
    const f = text.lastIndexOf('\\fbox', pos - 1);
    const start = Math.max(b, f);
    if (start < 0) break;
    const box = readBox(text, start, b > f ? 6 : 5);
    pos = start;
    if (!box) continue;
    // A box nested in a later box was already covered by the outer one.
    if (boxes.length > 0 && box.end > boxes[boxes.length - 1].start) continue;
    boxes.push(box);
  }
  return boxes;
}

/** True when the text contains a \boxed{...} or \fbox{...} command (empty or not). */
export function hasBoxed(text: string): boolean {
  return /\\(?:boxed|fbox)\b/.test(text);
}

const PERCENT_AFTER = /^\s*\$*\s*(?:\\%|%|percentage|percent|pct)/;
/**
 * Text between two boxes that joins them into one answer: nothing but punctuation (`\boxed{1}\boxed{2}`,
 * `\boxed{1}, \boxed{2}`), or at most five words one of which is `and` / `or` (`\boxed{1} papers and \boxed{2}`).
 * Longer prose (`\boxed{4}. But let me check again ... \boxed{4}`) separates two attempts, and only the last counts.
 */
function joinsBoxes(between: string): boolean {
  const t = between
    .replace(/\\(?:quad|qquad|text\s*\{\s*(and|or)\s*\}|[,;:! ])/g, ' $1 ')
    .replace(/[$()\\]/g, ' ')
    .trim();
  if (t.length >= 40) return false;
  if (!/[a-zA-Z]/.test(t)) return true;
  const words = t.match(/[a-zA-Z]+/g) ?? [];
  return words.length <= 5 && words.some((w) => w === 'and' || w === 'or');
}

/**
 * The last box plus earlier boxes chained to it by a short separator (`\boxed{1}, \boxed{2}`), joined by `,`
 * (so a list of several boxed answers becomes a set and must equal the gold set).
 */
export function lastBoxedAnswer(text: string): { content: string; end: number; percent: boolean } | null {
  const boxes = findBoxesFromRight(text);
  if (boxes.length === 0) return null;
  const parts = [boxes[0].content.trim()];
  for (let k = 1; k < boxes.length; k++) {
    const between = text.slice(boxes[k].end, boxes[k - 1].start);
    if (between.length >= 70 || !joinsBoxes(between)) break;
    parts.unshift(boxes[k].content.trim());
  }
  const percent = PERCENT_AFTER.test(text.slice(boxes[0].end, boxes[0].end + 24));
  return { content: parts.join(','), end: boxes[0].end, percent };
}

// LaTeX environments and plain numbers (bounded, non-nested quantifiers only).
const ENV_PATTERNS: RegExp[] = [
  /(?<![\\\w{])(-?\\frac\{\d+(?:\.\d+)?\}\{\d+(?:\.\d+)?\})/g, // a bare \frac{a}{b} in plain text (Math-Verify)
  /\$\$([^$]+?)\$\$/g,
  /\\\[([\s\S]+?)\\\]/g,
  /(?<![\\\d$])\$((?:\\\$|[^\n$])+?)(?<!\\)\$/g,
  /\\\(((?:[^\\\n]|\\(?!\)))+?)\\\)/g,
];
const NUMBER = String.raw`-?(?:\d{1,3}(?:,\d{3})+(?!,\d)|\d{1,3}(?: \d{3})+(?! ?\d)|\d+,\d{1,2}(?![\d,])|0,\d+(?![\d,])|\d{4,},\d+(?![\d,])|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?|-?\.\d+`;

/**
 * A plain number as written in prose: space thousands separators (`1 000`) go, and a decimal comma (`2,74`,
 * `0,111`, `1000,99`: not a group of three digits after a 1-3 digit head) becomes a point. Inside LaTeX a comma
 * separates answers, so only plain-number matches are read this way.
 */
function plainNumber(text: string, isPlain: boolean): string {
  if (!isPlain) return text;
  if (/^-?\d{1,3}(?: \d{3})+$/.test(text)) return text.replace(/ /g, '');
  if (/^-?(?:\d+,\d{1,2}|0,\d+|\d{4,},\d+)$/.test(text)) return text.replace(',', '.');
  return text;
}
// Not inside a word (AZYUK2A), an argument ({2}), a superscript or a subscript; units may follow (1,000.99m).
const PLAIN_NUMBER = new RegExp(String.raw`(?<![\w.{^_\\])(${NUMBER})(\s*(?:%|percent(?:age)?|pct))?(?!\d|\.\d)`, 'g');

interface Located extends AnswerCandidate {
  start: number;
  end: number;
}

function allMatches(re: RegExp, text: string, offset: number, source: AnswerSource, group = 1): Located[] {
  const out: Located[] = [];
  re.lastIndex = 0;
  for (const m of text.matchAll(re)) {
    const body = m[group];
    if (body === undefined || body.trim() === '') continue;
    const end = offset + m.index + m[0].length;
    const percent =
      PERCENT_AFTER.test(text.slice(m.index + m[0].length, m.index + m[0].length + 24)) ||
      /%|percent|pct/.test(m[2] ?? '');
    out.push({ text: plainNumber(body.trim(), re === PLAIN_NUMBER), source, percent, start: offset + m.index, end });
  }
  return out;
}

/** Environments joined by `and` / `or` / a comma (`$1$ and $2$`, `$21,16$ or $11$`) are one answer, as in Math-Verify. */
const ENV_JOIN = /^\s*(?:,?\s*(?:and|or)|,)\s*$/;

/** Last LaTeX environment or plain number inside `text`. */
function lastEnvOrNumber(text: string, offset: number, source: AnswerSource): Located | null {
  const envSource = source === 'plain-number' ? 'latex-env' : source;
  const envs = ENV_PATTERNS.flatMap((re) => allMatches(re, text, offset, envSource)).toSorted((a, b) => a.end - b.end);
  let best: Located | null = envs.length > 0 ? { ...envs[envs.length - 1] } : null;
  if (best) {
    for (let k = envs.length - 2; k >= 0 && k >= envs.length - 6; k--) {
      if (envs[k].end > best.start || !ENV_JOIN.test(text.slice(envs[k].end - offset, best.start - offset))) break;
      best = { ...best, text: `${envs[k].text},${best.text}`, start: envs[k].start };
    }
  }
  const numbers = allMatches(PLAIN_NUMBER, text, offset, source);
  const n = numbers.length > 0 ? numbers[numbers.length - 1] : null;
  if (n && (!best || n.end > best.end)) best = n;
  return best;
}

/** First env/number right after an anchor (`final answer is`, `answer:`), searched in `after` only. */
function firstEnvOrNumber(after: string, source: AnswerSource, maxStart = 8): AnswerCandidate | null {
  let best: { c: AnswerCandidate; start: number; end: number; env: boolean } | null = null;
  for (const re of [...ENV_PATTERNS, PLAIN_NUMBER]) {
    re.lastIndex = 0;
    const m = re.exec(after);
    re.lastIndex = 0;
    if (!m || m[1] === undefined) continue;
    if (!best || m.index < best.start) {
      const percent =
        PERCENT_AFTER.test(after.slice(m.index + m[0].length, m.index + m[0].length + 24)) ||
        /%|percent|pct/.test(m[2] ?? '');
      const c = { text: plainNumber(m[1].trim(), re === PLAIN_NUMBER), source, percent };
      best = { c, start: m.index, end: m.index + m[0].length, env: re !== PLAIN_NUMBER };
    }
  }
  if (!best || best.start > maxStart) return null;
  // `$12$ and $13$`: environments joined by and / or / a comma are one answer.
  for (let k = 0, end = best.end; best.env && k < 5; k++) {
    const sep = /^\s*(?:,?\s*(?:and|or)|,)\s*/.exec(after.slice(end));
    if (!sep) break;
    const rest = after.slice(end + sep[0].length);
    const next = ENV_PATTERNS.map((re) => {
      re.lastIndex = 0;
      const m = re.exec(rest);
      re.lastIndex = 0;
      return m && m.index === 0 && m[1] !== undefined ? m : null;
    }).find((m) => m !== null);
    if (!next) break;
    best.c = { ...best.c, text: `${best.c.text},${next[1].trim()}` };
    end += sep[0].length + next[0].length;
  }
  return best.c;
}

/**
 * "Final answer: 6 - 5i", "Answer: 3, 5, 7", "Final answer: 52_8": the rest of the line when it is a formula in
 * plain text (digits, operators, subscripts, LaTeX commands, single letters; no words), else null.
 */
function formulaLine(after: string): AnswerCandidate | null {
  const line = after
    .split('\n')[0]
    .trim()
    .replace(/\.\s*$/, '');
  if (line === '' || line.length > 80 || !/\d/.test(line) || line.includes('$')) return null;
  if (!/^[\w\s.,+\-*/^_{}()[\]\\=<>|]+$/.test(line) || /(?<![\\a-zA-Z])[a-zA-Z]{2,}/.test(line)) return null;
  return { text: line, source: 'answer-anchor', percent: false };
}

/**
 * Candidate answers in the order they should be tried (Math-Verify tries the next one when a candidate
 * does not parse). Empty when the response holds no answer, or is longer than MAX_RESPONSE_CHARS.
 */
export function extractCandidates(response: string): AnswerCandidate[] {
  if (response.length > MAX_RESPONSE_CHARS) return [];
  const offset = Math.max(0, response.length - TAIL_CHARS);
  const tail = response.slice(offset).replace(/\*\*/g, '  '); // Markdown bold would hide numbers (Math-Verify#76)
  const out: AnswerCandidate[] = [];

  // Priority 0: Minerva "final answer is $X$. I hope".
  const minerva = [...tail.matchAll(/final answer is:?\s*/gi)];
  for (let k = minerva.length - 1; k >= 0; k--) {
    const at = minerva[k].index + minerva[k][0].length;
    if (!/^[\s\S]{1,200}?\.?\s?I hope/.test(tail.slice(at, at + 220))) continue;
    const c = firstEnvOrNumber(tail.slice(at, at + 200), 'final-answer');
    if (c) out.push(c);
    break;
  }

  // Priority 50: last box vs "final answer ... is X"; the one that ends later first.
  const group: Located[] = [];
  const box = lastBoxedAnswer(response);
  if (box) group.push({ text: box.content, source: 'boxed', percent: box.percent, start: 0, end: box.end });
  const fa = [...tail.matchAll(/final answer.{0,100}?\s+is:?\s*/gi)];
  if (fa.length > 0) {
    const m = fa[fa.length - 1];
    const at = m.index + m[0].length;
    const c = firstEnvOrNumber(tail.slice(at, at + 400), 'final-answer');
    if (c) group.push({ ...c, start: offset + at, end: offset + at + c.text.length });
  }
  group.sort((a, b) => b.end - a.end);
  out.push(...group.map(({ text, source, percent }) => ({ text, source, percent })));
  if (hasBoxed(response)) return out; // strict: a response with a box is judged on its box

  // Priority 100 / 200: "answer: X" then "answer ... X".
  for (const re of [/answer\s*:\s*/gi, /answer\b\s*/gi]) {
    const ms = [...tail.matchAll(re)];
    for (let k = ms.length - 1; k >= 0 && k >= ms.length - 4; k--) {
      const at = ms[k].index + ms[k][0].length;
      const c =
        (re.source.includes(':') ? formulaLine(tail.slice(at, at + 300)) : null) ??
        firstEnvOrNumber(tail.slice(at, at + 300), 'answer-anchor', 60);
      if (c) {
        out.push(c);
        break;
      }
    }
  }

  // Priority 300: the last LaTeX environment or number.
  const last = lastEnvOrNumber(tail, offset, 'plain-number');
  if (last) out.push({ text: last.text, source: last.source, percent: last.percent });
  return out;
}
