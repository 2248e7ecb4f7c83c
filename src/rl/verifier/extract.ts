// Answer extraction from a model response, with Math-Verify's priorities (parser.py, the configuration
// ReMA uses for predictions: ExprExtractionConfig + LatexExtractionConfig with boxed priority 50):
//   0   "final answer is $X$. I hope"                      (Minerva format)
//   50  the last \boxed{} / \fbox{} (boxes joined by `,`, `and`, `or` within 70 characters, as Math-Verify's
//       boxed="last" mode) and "final answer ... is X" - whichever ends later
//   100 "answer: X", 200 "answer ... X"                    (X a LaTeX environment or a number)
//   300 the last LaTeX environment ($..$, $$..$$, \(..\), \[..\]) or plain number in the text
// Stricter rules for RL rewards (README "Deliberate differences"): once the response contains a \boxed, only
// priorities 0 and 50 are tried, so an empty, unparsable or unclosed last box can not fall back to some number
// earlier in the text; only the text after </think> is read; an answer that is negated or followed by a refusal
// is no answer; hedged alternatives are one list (a set); answer statements stated together carry each other
// as rivals, which must agree (index.ts).

import { answerRegion, hasHedge, isListSeparator, isNegated, lastRefusalEnd } from './hedges.ts';

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
  /** Other answers stated together with this one (`the final answer is 5, \boxed{6}`): all must agree. */
  rivals?: AnswerCandidate[];
}

interface Box {
  start: number; // index of the backslash of \boxed
  end: number; // index one past the closing brace
  content: string;
  /** The argument's brace is never closed, or the command has no argument: an unfinished answer. */
  unclosed?: boolean;
}

/** Find the box whose command starts at `start`; brace matching handles nesting. Null for `\boxed` inside a word. */
function readBox(text: string, start: number, commandLength: number): Box | null {
  let i = start + commandLength;
  if (/[a-zA-Z]/.test(text[i] ?? '')) return null; // \boxedsomething is another command
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  if (i >= text.length) return { start, end: text.length, content: '', unclosed: true };
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
  // Unclosed box: Math-Verify takes the rest of the text; here it is an unfinished answer.
  return { start, end: text.length, content: text.slice(i + 1), unclosed: true };
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
    // A box nested in a later box was already covered by the outer one; an unclosed box before a closed one
    // swallowed it and is not an answer of its own.
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

interface BoxGroup {
  content: string;
  start: number;
  end: number;
  percent: boolean;
  unclosed: boolean;
}

/** Box groups from right to left: each box joined with the earlier boxes chained to it by a short separator. */
function boxGroups(text: string, limit = 4): BoxGroup[] {
  const boxes = findBoxesFromRight(text);
  const groups: BoxGroup[] = [];
  for (let k = 0; k < boxes.length && groups.length < limit;) {
    const parts = [boxes[k].content.trim()];
    let j = k + 1;
    for (; j < boxes.length && !boxes[k].unclosed; j++) {
      const between = text.slice(boxes[j].end, boxes[j - 1].start);
      if (between.length >= 70 || !joinsBoxes(between)) break;
      parts.unshift(boxes[j].content.trim());
    }
    const percent = PERCENT_AFTER.test(text.slice(boxes[k].end, boxes[k].end + 24));
    const unclosed = boxes[k].unclosed === true;
    groups.push({ content: parts.join(','), start: boxes[j - 1].start, end: boxes[k].end, percent, unclosed });
    k = j;
  }
  return groups;
}

/**
 * The last box plus earlier boxes chained to it by a short separator (`\boxed{1}, \boxed{2}`), joined by `,`
 * (so a list of several boxed answers becomes a set and must equal the gold set). `unclosed` when the last box
 * is never closed.
 */
export function lastBoxedAnswer(text: string): BoxGroup | null {
  return boxGroups(text, 1)[0] ?? null;
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
/** Text right after a number that makes it the start of a formula, not an answer (`2 \times 3 = 6`). */
const OPERATOR_AFTER = /^\s*(?:[-+*/=^<>×·]|\\(?:times|cdot|div|pm|mp|le|ge|leq|geq|neq|approx|frac)\b)/;
/** Most items one list of alternatives is read over. */
const MAX_LIST = 8;

interface Item extends Located {
  env: boolean;
}

/** Join `items` (left to right) into one candidate: a comma list, which parse.ts reads as a set. */
function joined(items: Item[]): Item {
  const last = items[items.length - 1];
  return { ...last, text: items.map((x) => x.text).join(','), start: items[0].start };
}

/**
 * Last LaTeX environment or number inside `text`, with the earlier items it is listed with: environments joined by
 * and / or / a comma (Math-Verify), and any items in a list of guesses (`3, 4, 5, or 6`, `12? Maybe 15?`), which
 * become one set answer.
 */
function lastEnvOrNumber(text: string, offset: number, source: AnswerSource): Located | null {
  const envSource = source === 'plain-number' ? 'latex-env' : source;
  const envs: Item[] = ENV_PATTERNS.flatMap((re) => allMatches(re, text, offset, envSource)).map((e) => ({
    ...e,
    env: true,
  }));
  envs.sort((a, b) => a.end - b.end);
  const numbers: Item[] = allMatches(PLAIN_NUMBER, text, offset, source)
    .filter((n) => !envs.some((e) => n.start >= e.start && n.end <= e.end))
    .map((n) => ({ ...n, env: false }));
  const items = [...envs, ...numbers].toSorted((a, b) => a.end - b.end);
  if (items.length === 0) return null;
  const last = items[items.length - 1];
  const envChain: Item[] = [last];
  const list: Item[] = [last];
  let hedged = false;
  let envOpen = last.env;
  for (let k = items.length - 2; k >= 0 && list.length < MAX_LIST; k--) {
    const it = items[k];
    if (it.end > list[0].start) continue; // inside a later item
    const between = text.slice(it.end - offset, list[0].start - offset);
    if (envOpen && it.env && ENV_JOIN.test(between) && envChain.length < 6) envChain.unshift(it);
    else envOpen = false;
    if (!isListSeparator(between)) break;
    hedged ||= hasHedge(between);
    list.unshift(it);
  }
  // A plain comma list counts as one answer when it ends the response (`... are 3, 4, 5, 6.`).
  const endsText = /^[\s.!$]*$/.test(text.slice(last.end - offset));
  return (hedged || endsText) && list.length > envChain.length ? joined(list) : joined(envChain);
}

/** The earliest LaTeX environment or number in `s` (positions relative to `s`). */
function firstItem(s: string, source: AnswerSource): Item | null {
  let best: Item | null = null;
  for (const re of [...ENV_PATTERNS, PLAIN_NUMBER]) {
    re.lastIndex = 0;
    const m = re.exec(s);
    re.lastIndex = 0;
    if (!m || m[1] === undefined || m[1].trim() === '') continue;
    if (best && m.index >= best.start) continue;
    const end = m.index + m[0].length;
    const percent = PERCENT_AFTER.test(s.slice(end, end + 24)) || /%|percent|pct/.test(m[2] ?? '');
    const text = plainNumber(m[1].trim(), re === PLAIN_NUMBER);
    best = { text, source, percent, start: m.index, end, env: re !== PLAIN_NUMBER };
  }
  return best;
}

/**
 * First env/number right after an anchor (`final answer is`, `answer:`), searched in `after` only, with the items
 * listed after it: environments joined by and / or / a comma, and a list of alternatives (`3, 4, or 5`; a plain
 * comma list only when it ends the sentence: `3, 5, 7.`). Positions are relative to `after`.
 */
function firstEnvOrNumber(after: string, source: AnswerSource, maxStart = 8): Item | null {
  const first = firstItem(after, source);
  if (!first || first.start > maxStart) return null;
  const list: Item[] = [first];
  let hedged = false;
  let envChain = 1;
  for (let envOpen = first.env; list.length < MAX_LIST;) {
    const prev = list[list.length - 1];
    const next = firstItem(after.slice(prev.end), source);
    if (!next) break;
    const between = after.slice(prev.end, prev.end + next.start);
    if (!isListSeparator(between)) break;
    if (envOpen && next.env && ENV_JOIN.test(between) && envChain < 6) envChain++;
    else envOpen = false;
    hedged ||= hasHedge(between);
    list.push({ ...next, start: prev.end + next.start, end: prev.end + next.end });
  }
  // A plain comma list counts when it ends its sentence (`3, 5, 7.`), not when prose goes on (`5, 3 more than`).
  for (let n = list.length; n > envChain; n--) {
    const rest = after.slice(list[n - 1].end);
    if (hedged || /^\s*(?:$|[.!;\n]|\?\s*$)/.test(rest)) return joined(list.slice(0, n));
  }
  return joined(list.slice(0, envChain));
}

/**
 * "Final answer: 6 - 5i", "Answer: 3, 5, 7", "Final answer: 52_8": the rest of the line when it is a formula in
 * plain text (digits, operators, subscripts, LaTeX commands, single letters; no words), else null.
 */
function formulaLine(after: string): Item | null {
  const first = after.split('\n')[0];
  const line = first.trim().replace(/\.\s*$/, '');
  if (line === '' || line.length > 80 || !/\d/.test(line) || line.includes('$')) return null;
  if (!/^[\w\s.,+\-*/^_{}()[\]\\=<>|]+$/.test(line) || /(?<![\\a-zA-Z])[a-zA-Z]{2,}/.test(line)) return null;
  const start = first.indexOf(line);
  return { text: line, source: 'answer-anchor', percent: false, start, end: start + line.length, env: false };
}

/** `c` moved from positions in a slice to positions in the text the slice starts at `base` of. */
function at(c: Item | null, base: number): Located | null {
  return c && { text: c.text, source: c.source, percent: c.percent, start: base + c.start, end: base + c.end };
}

/** An answer statement (`the answer is 5`, `final answer: 5`, `answer = 5`), the anchor that begins it. */
const STATEMENT = /\bfinal answer.{0,100}?\s+is:?\s*|\banswer\s*(?:is\b|:|=)\s*/gi;
/** Two statements this close (no blank line between) state one answer together; farther apart they are attempts. */
const TOGETHER_CHARS = 48;

function together(text: string, a: Located, b: Located): boolean {
  const [first, second] = a.start <= b.start ? [a, b] : [b, a];
  if (second.start < first.end) return true;
  const gap = text.slice(first.end, second.start);
  return gap.length <= TOGETHER_CHARS && !/\n\s*\n/.test(gap);
}

/** Statements stated together with `chosen`, directly or through each other (not overlapping it). */
function rivalsOf(text: string, chosen: Located, statements: Located[]): AnswerCandidate[] {
  const chain = [chosen];
  const rest = statements.filter((s) => s.end <= chosen.start || s.start >= chosen.end);
  for (let grew = true; grew;) {
    grew = false;
    for (let k = rest.length - 1; k >= 0; k--) {
      if (chain.some((c) => together(text, c, rest[k]))) {
        chain.push(...rest.splice(k, 1));
        grew = true;
      }
    }
  }
  return chain.slice(1).map(({ text: t, source, percent }) => ({ text: t, source, percent }));
}

/**
 * Candidate answers in the order they should be tried (Math-Verify tries the next one when a candidate
 * does not parse). Empty when the response holds no answer, or is longer than MAX_RESPONSE_CHARS.
 */
export function extractCandidates(response: string): AnswerCandidate[] {
  if (response.length > MAX_RESPONSE_CHARS) return [];
  // Markdown bold would hide numbers (Math-Verify#76); replaced by spaces, so positions stay.
  const view = answerRegion(response).replace(/\*\*/g, '  ');
  const offset = Math.max(0, view.length - TAIL_CHARS);
  const tail = view.slice(offset);
  const refusal = lastRefusalEnd(tail) + offset;
  // An answer followed by a refusal ("... cannot determine") or stated as what the answer is not is no answer.
  const live = (c: Located | null): c is Located =>
    c !== null && c.end > refusal && !isNegated(view.slice(Math.max(0, c.start - 80), c.start), view.slice(c.end));
  const out: Located[] = [];

  // Priority 0: Minerva "final answer is $X$. I hope".
  const minerva = [...tail.matchAll(/final answer is:?\s*/gi)];
  for (let k = minerva.length - 1; k >= 0; k--) {
    const from = minerva[k].index + minerva[k][0].length;
    if (!/^[\s\S]{1,200}?\.?\s?I hope/.test(tail.slice(from, from + 220))) continue;
    const c = at(firstEnvOrNumber(tail.slice(from, from + 200), 'final-answer'), offset + from);
    if (c) out.push(c);
    break;
  }

  // Priority 50: last box vs "final answer ... is X"; the one that ends later first.
  const boxes = boxGroups(view);
  if (boxes[0]?.unclosed) return []; // an unfinished box: no answer, and no fallback to earlier text
  const group: Located[] = [];
  if (boxes.length > 0) group.push({ text: boxes[0].content, source: 'boxed', ...boxes[0] });
  const fa = [...tail.matchAll(/final answer.{0,100}?\s+is:?\s*/gi)];
  if (fa.length > 0) {
    const from = fa[fa.length - 1].index + fa[fa.length - 1][0].length;
    const c = at(firstEnvOrNumber(tail.slice(from, from + 400), 'final-answer'), offset + from);
    // `final answer is $\boxed{5}$` is the box itself
    if (c && !(group.length > 0 && c.start < group[0].end && group[0].start < c.end)) group.push(c);
  }
  group.sort((a, b) => b.end - a.end);
  out.push(...group);

  if (!hasBoxed(view)) {
    // Priority 100 / 200: "answer: X" then "answer ... X".
    for (const re of [/answers?\s*:\s*/gi, /answers?\b\s*/gi]) {
      const ms = [...tail.matchAll(re)];
      for (let k = ms.length - 1; k >= 0 && k >= ms.length - 4; k--) {
        const from = ms[k].index + ms[k][0].length;
        const after = tail.slice(from, from + 300);
        const c = at(
          (re.source.includes(':') ? formulaLine(after) : null) ?? firstEnvOrNumber(after, 'answer-anchor', 60),
          offset + from,
        );
        if (c) {
          out.push(c);
          break;
        }
      }
    }
    // Priority 300: the last LaTeX environment or number.
    const last = lastEnvOrNumber(tail, offset, 'plain-number');
    if (last) out.push(last);
  }

  const kept = out.filter(live);
  if (kept.length === 0) return [];
  // Statements that could rival the chosen answer: box groups and "answer is X" anchors followed by an answer
  // that is not the start of a formula.
  const statements: Located[] = boxes.map((b) => ({ text: b.content, source: 'boxed' as const, ...b }));
  for (const m of tail.matchAll(STATEMENT)) {
    const from = m.index + m[0].length;
    const after = tail.slice(from, from + 400);
    const c = firstEnvOrNumber(after, 'final-answer');
    if (c && !OPERATOR_AFTER.test(after.slice(c.end))) statements.push(at(c, offset + from)!);
  }
  const rivals = rivalsOf(view, kept[0], statements.filter(live));
  const strip = ({ text, source, percent }: Located): AnswerCandidate => ({ text, source, percent });
  return [{ ...strip(kept[0]), ...(rivals.length > 0 ? { rivals } : {}) }, ...kept.slice(1).map(strip)];
}
