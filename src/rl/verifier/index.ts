// The math answer checker used for ReMA rewards: extract the model's answer (Math-Verify priorities), normalise
// it, parse it with @cortex-js/compute-engine, and compare it with the gold answer (read as the paper's code
// does, as \boxed{gold}). Every check has a wall-clock budget; a check that runs out, or an input that fails a
// size guard, scores false and never throws. The behaviour follows huggingface/Math-Verify (Apache-2.0);
// see the header of compare.ts for where we differ on purpose.

import { Deadline, VerifierTimeout } from './deadline.ts';
import { extractCandidates, type AnswerCandidate } from './extract.ts';
import { normalizeAnswer } from './normalize.ts';
import { computeEngine, parseAnswer, type Value } from './parse.ts';
import { equal, FLOAT_ROUNDING } from './compare.ts';
import { evalFloat } from './numeric.ts';
import { DEFAULT_TIMEOUT_MS, type VerifyOptions, type VerifyResult } from './result.ts';

export { hasBoxed } from './extract.ts';
export { normalizeAnswer } from './normalize.ts';
export { VerifierTimeout } from './deadline.ts';
export { DEFAULT_TIMEOUT_MS, verifyJudgeVerdict, type VerifyOptions, type VerifyResult } from './result.ts';

/** Candidates tried per response before giving up (Math-Verify tries the next match when one fails to parse). */
const MAX_CANDIDATES = 4;

interface Parsed {
  value: Value | null;
  /** Reading without a percent sign written after the box (`\boxed{10}\%`); tried second. */
  withoutPercent: Value | null;
  extracted: string | null;
  /** Another answer stated together with the chosen one has a different value. */
  conflict?: boolean;
}

/** True when some rival of the chosen answer parses to a different value (unparsable rivals state nothing). */
function rivalDiffers(value: Value, rivals: readonly AnswerCandidate[], dl: Deadline): boolean {
  for (const r of rivals) {
    const normalized = normalizeAnswer(r.text);
    if (normalized === '') continue;
    let v: Value | null = null;
    try {
      v = parseAnswer(normalized, r.percent, dl);
    } catch (e) {
      if (e instanceof VerifierTimeout) throw e;
    }
    if (v && !equal(value, v, dl) && !equal(v, value, dl)) return true;
  }
  return false;
}

function firstParsed(text: string, dl: Deadline): Parsed {
  const candidates = extractCandidates(text).slice(0, MAX_CANDIDATES);
  let firstText: string | null = null;
  for (const c of candidates) {
    dl.check();
    const normalized = normalizeAnswer(c.text);
    if (normalized === '') continue;
    firstText ??= normalized;
    let value: Value | null = null;
    let withoutPercent: Value | null = null;
    try {
      value = parseAnswer(normalized, c.percent, dl);
      // A percent sign after the box or inside it: also read without it (a gold of 20 for "what percent ...").
      if (value && (c.percent || normalized.includes('\\%')))
        withoutPercent = parseAnswer(normalized.replace(/\\%/g, ''), false, dl);
    } catch (e) {
      if (e instanceof VerifierTimeout) throw e;
      value = null; // a parser failure on one candidate: try the next, as Math-Verify does
    }
    if (value) {
      const conflict = c.rivals !== undefined && rivalDiffers(value, c.rivals, dl);
      return { value, withoutPercent, extracted: normalized, ...(conflict ? { conflict } : {}) };
    }
  }
  return { value: null, withoutPercent: null, extracted: firstText };
}

/** Parsed golds by gold text: a group's answers share one gold, and a training set repeats its golds every epoch
 *  (bounded; cleared when full). A gold whose parse ran out of time is not kept. */
const GOLD_MEMO_LIMIT = 4096;
const goldMemo = new Map<string, Parsed>();

function parsedGold(gold: string, dl: Deadline): Parsed {
  let parsed = goldMemo.get(gold);
  if (parsed === undefined) {
    parsed = firstParsed(`\\boxed{${gold}}`, dl);
    if (goldMemo.size >= GOLD_MEMO_LIMIT) goldMemo.clear();
    goldMemo.set(gold, parsed);
  }
  return parsed;
}

/**
 * Extract the answer from `text` (the same priorities as verifyMath), normalised; null when there is none.
 */
export function extractAnswer(text: string): string | null {
  for (const c of extractCandidates(text).slice(0, MAX_CANDIDATES)) {
    const normalized = normalizeAnswer(c.text);
    if (normalized !== '') return normalized;
  }
  return null;
}

/**
 * Is `prediction` a correct answer to a problem whose reference answer is `gold`?
 * The gold is read as `\boxed{gold}` (ReMA's math_verify.compute_score).
 */
export function verifyMath(gold: string, prediction: string, opts: VerifyOptions = {}): VerifyResult {
  computeEngine(); // one-time library warm-up, outside the budget of this check
  const dl = new Deadline(
    opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    opts.floatRounding ?? FLOAT_ROUNDING,
    opts.allowSetRelationComp ?? false,
  );
  let extracted: string | null = null;
  try {
    const goldParsed = parsedGold(gold, dl);
    const pred = firstParsed(prediction, dl);
    extracted = pred.extracted;
    if (!goldParsed.value) return { correct: false, extracted, reason: 'bad-gold' };
    if (pred.conflict) return { correct: false, extracted, reason: 'conflicting-answers' };
    if (!pred.value) {
      const reason =
        extracted === null ? (prediction.length > 100_000 ? 'too-long' : 'no-answer') : 'unparsable-answer';
      return { correct: false, extracted, reason };
    }
    // A percent sign written after the box is read as /100 first (Math-Verify), then as a unit: MATH golds
    // such as "10" come with solutions ending "\boxed{10}\%" or "$\boxed{10}$ percent".
    // Only for golds of at least 1 in size: `0.2\%` does not answer a gold of 0.2 (a probability, 20 %).
    const g = goldParsed.value;
    const unitReading =
      pred.withoutPercent !== null && (g.kind !== 'scalar' || Math.abs(evalFloat(g.json, new Map(), dl)) >= 1);
    const correct = equal(g, pred.value, dl) || (unitReading && equal(g, pred.withoutPercent!, dl));
    return { correct, extracted, reason: correct ? 'equal' : 'not-equal' };
  } catch (e) {
    if (e instanceof VerifierTimeout) return { correct: false, extracted, reason: 'timeout' };
    return { correct: false, extracted, reason: `error: ${e instanceof Error ? e.message : String(e)}` };
  }
}
