// Measures the answer checker (src/rl/verifier) against two labelled sets, for scripts/verifier/agreement.ts and
// the threshold tests in tests/rl/verifier/agreement.test.ts:
//  - Math-Verify's own parametrised test cases (tests/fixtures/verifier/math-verify-cases.json, extracted by
//    extract_math_verify_cases.py): Math-Verify parses the gold with the same extraction as the prediction, so the
//    gold string goes through our extraction first and its answer is then the gold of verifyMath; the harness's
//    precision and allow_set_relation_comp are passed on (floatRounding, allowSetRelationComp).
//  - answer rewrites of MATH500 / GSM8K golds (tests/fixtures/verifier/rewrites.jsonl, written by
//    gen-rewrites.ts), each labelled correct or incorrect by construction.
// Cases listed in KNOWN_DIFFERENCES (with the reason ours is right) are reported apart from plain disagreements.
import { readFileSync } from 'node:fs';
import { extractAnswer, verifyMath } from '../../src/rl/verifier/index.ts';

const FIXTURES = new URL('../../tests/fixtures/verifier/', import.meta.url);

export interface MathVerifyCase {
  file: string;
  test: string;
  index: number;
  line: number;
  gold: string;
  pred: string;
  expected: boolean;
  match_types: string[];
  precision: number;
  strict: boolean;
  allow_set_relation_comp: boolean;
}

export interface RewriteCase {
  source: string;
  id: string;
  category: string;
  gold: string;
  pred: string;
  label: boolean;
}

export interface Outcome<C> {
  case: C;
  ours: boolean;
  reason: string;
  agrees: boolean;
}

export function loadMathVerifyCases(): { commit: string; cases: MathVerifyCase[] } {
  const data = JSON.parse(readFileSync(new URL('math-verify-cases.json', FIXTURES), 'utf8')) as {
    commit: string;
    cases: MathVerifyCase[];
  };
  return data;
}

export function loadRewrites(): RewriteCase[] {
  return readFileSync(new URL('rewrites.jsonl', FIXTURES), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as RewriteCase);
}

/** Our verdict on one Math-Verify case (gold extracted as Math-Verify does, then read as the answer). */
export function runMathVerifyCase(c: MathVerifyCase): Outcome<MathVerifyCase> {
  const gold = extractAnswer(c.gold) ?? c.gold;
  const r = verifyMath(gold, c.pred, {
    timeoutMs: 5_000,
    floatRounding: c.precision,
    allowSetRelationComp: c.allow_set_relation_comp,
  });
  return { case: c, ours: r.correct, reason: r.reason, agrees: r.correct === c.expected };
}

export function runRewrite(c: RewriteCase): Outcome<RewriteCase> {
  const r = verifyMath(c.gold, c.pred, { timeoutMs: 5_000 });
  return { case: c, ours: r.correct, reason: r.reason, agrees: r.correct === c.label };
}

/** Key of a Math-Verify case in KNOWN_DIFFERENCES. */
export const caseKey = (c: MathVerifyCase): string => `${c.file}:${c.line}`;

/**
 * The Math-Verify cases where our verdict differs, each with its reason ("ours": deliberately different, "gap":
 * not supported); the same list is in src/rl/verifier/README.md.
 */
export const KNOWN_DIFFERENCES: Record<string, string> = {
  'test_all.py:132':
    'ours: a number right after "Answer" is the answer (their harness runs LaTeX extraction only, whose $...$ may not span lines)',
  'test_all.py:133':
    'ours: a number right after "Answer" is the answer (their harness runs LaTeX extraction only, whose \\(...\\) may not span lines)',
  'test_yujianll.py:28':
    'ours: 1 + 1/e is not 1 - 1/e (the upstream verdict 1 is wrong; e read as a symbol cancels there)',
  'test_strict.py:8':
    'ours: variables always matter, f(x) is not f(y) (the case runs Math-Verify with strict=False, an option we do not offer)',
  'test_numina_cases.py:24':
    'gap: 1 <= |z| <= 3/2 against its solution set needs solving an inequality (we have no solver)',
  'test_numina_cases.py:54': 'gap: assignment groups separated by ";" (p=5,q=2;p=7,q=2) are not read as tuples',
  'test_numina_cases.py:121':
    'gap: plain-text alternatives glued to words (W(x)=1orW(x)=-1) are not split; the last number is read',
};

export interface Tally {
  n: number;
  agree: number;
}

export function tally<C>(outcomes: readonly Outcome<C>[], keyOf: (c: C) => string): Map<string, Tally> {
  const out = new Map<string, Tally>();
  for (const o of outcomes) {
    for (const k of [keyOf(o.case), 'all']) {
      const t = out.get(k) ?? { n: 0, agree: 0 };
      t.n++;
      if (o.agrees) t.agree++;
      out.set(k, t);
    }
  }
  return out;
}
