// Text around an extracted answer that takes the answer back: a closed or unclosed <think> (or <thinking>) block, a negation
// ("the answer is not 5", "\boxed{5} is wrong"), a refusal after it ("cannot determine"), and the separators of
// a list of guesses ("3, 4, or 5", "12? Maybe 15?"). Pure string rules, bounded: every regex is applied to a
// short window or to the tail extract.ts already cut.

/**
 * The part of a response an answer may come from: the text after the last `</think>`; nothing when a
 * `<think>` was opened and never closed (the response ended while thinking). Without think tags, all of it.
 */
export function answerRegion(text: string): string {
  let end = -1;
  for (const m of text.matchAll(/<\/think(?:ing)?\s*>/gi)) end = m.index + m[0].length;
  if (end >= 0) return text.slice(end);
  return /<think(?:ing)?\s*>/i.test(text) ? '' : text;
}

const NEGATION_BEFORE =
  /(?:\bnot|n't|\bcannot|\bnever|\bno longer|\bneither|\bnor|\banything but|\bother than|\bexcept(?: for)?)(?:\s+(?:equal|equals|to|be|just|exactly|simply|actually|really|quite|necessarily|definitely|possibly|the|answer|correct|going|as|at|all|a))*\s*[:=]?\s*$/i;
const NEGATION_AFTER =
  /^\s*(?:(?:is|was|would be|seems(?: to be)?|must be)\s+(?:not\b|never\b|wrong\b|incorrect\b|false\b|impossible\b)|(?:is\s+)?(?:wrong|incorrect)\b)/i;
const ISNT_AFTER = /^\s*(?:isn't|wasn't|can't|cannot|couldn't)\b/i;

/**
 * True when the answer at `before`|answer|`after` is stated as what the answer is not: a negation word just
 * before it (`is not $5$`, `isn't \boxed{5}`, `\neq 5`) or a verdict of wrong just after it (`5 is wrong`,
 * `\boxed{5} is not the answer`). `before` and `after` are the text either side (markup such as `$` or
 * `\boxed{` may lie between).
 */
export function isNegated(before: string, after: string): boolean {
  const b = before
    .slice(-60)
    .replace(/\\(?:boxed|fbox)\s*\{?\s*$|\\\(|\\\[|\$+|\*+/g, ' ')
    .replace(/\s+$/, '');
  // `x != 5` (not `7!=\boxed{5040}`: a factorial then `=`)
  if (/(?:\\neq?|\\ne|≠|(?<![\w)}!])!=|<>)\s*$/.test(b)) return true;
  // Only the clause that holds the answer: "it is not 3, so the answer is 5" negates 3 only.
  const clause = b.split(/[.;!?\n]|,\s*(?:so|but|and|thus|hence|therefore)\b/i).at(-1) ?? '';
  if (NEGATION_BEFORE.test(clause) && !/\bnot\s+only\s*$/i.test(clause)) return true;
  // `5 is wrong`, `\boxed{5} is not the answer`; not `5, not 6` (which negates 6)
  const a = after.slice(0, 60).replace(/^[\s$}\\)\]]*/, '');
  return NEGATION_AFTER.test(a) || ISNT_AFTER.test(a);
}

const REFUSAL =
  /\b(?:can ?not|can't|can’t|unable to|impossible to|not possible to|no way to)\s+(?:be\s+)?(?:determined?|decided?|be found|find|solved?|compute[sd]?|answered|answer|say|tell|know)\b|\b(?:cannot|can't)\s+be\s+(?:determined|found|computed|answered)|\b(?:not enough|insufficient|missing)\s+(?:information|data)|\bI (?:do not|don't) know\b|\bundetermin(?:ed|able)\b|\bindeterminate\b/gi;

/** End of the last refusal phrase ("cannot determine", "not enough information") in `text`, or -1. */
export function lastRefusalEnd(text: string): number {
  let end = -1;
  REFUSAL.lastIndex = 0;
  for (const m of text.matchAll(REFUSAL)) end = m.index + m[0].length;
  return end;
}

const HEDGE_WORD = /\b(?:or|maybe|perhaps|possibly|probably|either|likely|could|might|guess|else)\b|\?/i;
const LIST_SEP =
  /^(?:\s*(?:,|;|\?|\.{3}|\.|…|\bor\b|\band\b|\beither\b|\bmaybe\b|\bperhaps\b|\bpossibly\b|\bprobably\b|\blikely\b|\belse\b|\bis it\b|\b(?:it )?(?:could|might|may) (?:also )?be\b|\bguess\b|\bI\b|\b[a-zA-Z]\s*=)\s*)+$/i;

/**
 * True when `between` (the text between two answers) could separate the items of one list of alternatives:
 * only list punctuation and hedge words (`, `, ` or `, `? Maybe `, `, or x = `).
 */
export function isListSeparator(between: string): boolean {
  if (between.length > 40 || !LIST_SEP.test(between)) return false;
  // a sentence end separates list items only when a hedge follows it (`It might be 4. It might be 5.`)
  return !/\.(?!\.)/.test(between.replace(/\.{3}/g, '')) || HEDGE_WORD.test(between);
}

/** True when a separator hedges (`or`, `?`, `maybe`, `could be`...): a list holding one is a list of guesses. */
export function hasHedge(between: string): boolean {
  return HEDGE_WORD.test(between);
}
