// The answer checker against two labelled sets (scripts/verifier/measure.ts; `npx tsx scripts/verifier/agreement.ts`
// prints the per-file and per-category figures): Math-Verify's own test suite (tests/fixtures/verifier/
// math-verify-cases.json) and answer rewrites of MATH500 / GSM8K golds labelled by construction
// (tests/fixtures/verifier/rewrites.jsonl, scripts/verifier/gen-rewrites.ts).
import { describe, expect, it } from 'vitest';
import {
  KNOWN_DIFFERENCES,
  caseKey,
  loadMathVerifyCases,
  loadRewrites,
  runMathVerifyCase,
  runRewrite,
} from '../../../scripts/verifier/measure.ts';

describe('agreement with Math-Verify and correctness on answer rewrites', () => {
  it("agrees with at least 97% of Math-Verify's test-suite verdicts, every difference listed with its reason", () => {
    const { cases } = loadMathVerifyCases();
    expect(cases.length).toBeGreaterThanOrEqual(260);
    const outcomes = cases.map(runMathVerifyCase);
    const agree = outcomes.filter((o) => o.agrees).length;
    expect(agree / cases.length).toBeGreaterThanOrEqual(0.97);
    const unexplained = outcomes
      .filter((o) => !o.agrees && !KNOWN_DIFFERENCES[caseKey(o.case)])
      .map((o) => caseKey(o.case));
    expect(unexplained).toEqual([]);
  }, 120_000);

  it('is right on at least 99% of the answer rewrites, and on at least 97% within every category', () => {
    const rewrites = loadRewrites();
    expect(rewrites.length).toBeGreaterThan(5_000);
    const outcomes = rewrites.map(runRewrite);
    expect(outcomes.filter((o) => o.agrees).length / outcomes.length).toBeGreaterThanOrEqual(0.99);
    const byCategory = new Map<string, { n: number; right: number }>();
    for (const o of outcomes) {
      const t = byCategory.get(o.case.category) ?? { n: 0, right: 0 };
      t.n++;
      if (o.agrees) t.right++;
      byCategory.set(o.case.category, t);
    }
    const weak = [...byCategory].filter(([, t]) => t.right / t.n < 0.97).map(([k, t]) => `${k} ${t.right}/${t.n}`);
    expect(weak).toEqual([]);
    // a set that a checker saying "true" to everything would fail: at least a third are wrong answers
    expect(rewrites.filter((r) => !r.label).length / rewrites.length).toBeGreaterThan(1 / 3);
  }, 120_000);
});
