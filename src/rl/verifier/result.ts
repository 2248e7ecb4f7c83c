// What a check answers and how it is bounded, apart from the checker itself: the training worker and the grading
// code import these without loading the LaTeX parser (@cortex-js/compute-engine, parse.ts), which only the
// answer checker's own worker needs (verifier/index.ts, serve.ts). Also the judge task's verdict check, which needs
// no parser.

/** Default budget for one check (Math-Verify's own default timeout is 5 s; the ReMA reward pool uses 10 s). */
export const DEFAULT_TIMEOUT_MS = 3_000;

export interface VerifyResult {
  correct: boolean;
  /** The normalised answer taken from the prediction, or null when none was found. */
  extracted: string | null;
  /**
   * Why: 'equal', 'not-equal', 'no-answer', 'unparsable-answer', 'conflicting-answers' (two answers stated
   * together disagree), 'bad-gold', 'timeout', 'too-long'.
   */
  reason: string;
}

/** How one check (verifyMath) is bounded and compared. */
export interface VerifyOptions {
  /** Wall-clock budget of the check (default DEFAULT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Decimal places compared when a decimal is involved (default 6, Math-Verify's); a gold with more places keeps them all. */
  floatRounding?: number;
  /** Math-Verify allow_set_relation_comp (default false): a gold set such as x \in [a, b] may be answered by an inequality. */
  allowSetRelationComp?: boolean;
}

/**
 * Judge-task reward: the last `[[A]]` or `[[B]]` in the text is the verdict; a text that contains both
 * (or neither) has no verdict and is not correct.
 */
export function verifyJudgeVerdict(gold: 'A' | 'B', text: string): { correct: boolean; verdict: 'A' | 'B' | null } {
  const hasA = text.includes('[[A]]');
  const hasB = text.includes('[[B]]');
  if (hasA === hasB) return { correct: false, verdict: null };
  const verdict = hasA ? 'A' : 'B';
  return { correct: verdict === gold, verdict };
}
