// The plan-to-reasoning alignment on the tiny task's own renderings (question, plan, computation) and on free text:
// every held-out problem with a loss, its plan misread as the embedded model does, flags exactly the misread steps
// and the equations that follow them; gold plans flag nothing.
import { describe, expect, it } from 'vitest';
import {
  alignPlan,
  lossAsGainCount,
  questionEvents,
  reasoningSteps,
  stepFacts,
} from '../../../src/app/analysis/plan-alignment.ts';
import { tinySpecs } from '../../../src/data/tiny-task/index.ts';
import type { TinyProblemSpec } from '../../../src/data/tiny-task/generator.ts';
import { renderComputation, renderPlan, renderQuestion } from '../../../src/data/tiny-task/text.ts';
import { flawSteps, misreadLosses } from '../../../src/data/tiny-task/traces.ts';
import { Rng } from '../../../src/util/rng.ts';

const ann: TinyProblemSpec = {
  level: 2,
  name: 'Ann',
  pronoun: 'She',
  item: 'figs',
  steps: [
    { kind: 'start', value: 7 },
    { kind: 'add', n: 5 },
    { kind: 'sub', n: 3 },
    { kind: 'mul', factor: 2 },
  ],
};

describe('stepFacts and questionEvents', () => {
  it('reads operations from words, implied numbers and symbols', () => {
    expect(stepFacts('Double it.')).toEqual({ text: 'Double it.', ops: ['*'], numbers: [2] });
    expect(stepFacts('Add 3*4.')).toEqual({ text: 'Add 3*4.', ops: ['+', '*'], numbers: [3, 4] });
    expect(stepFacts('Divide by 3.').ops).toEqual(['/']);
    expect(stepFacts('Confirm the answer. [FINISH]')).toEqual({
      text: 'Confirm the answer. [FINISH]',
      ops: [],
      numbers: [],
    });
  });

  it('turns the question into events, with losses marked', () => {
    const events = questionEvents(renderQuestion(ann));
    expect(events.map((e) => [e.op, e.numbers, e.loss])).toEqual([
      ['start', [7], false],
      ['+', [5], false],
      ['-', [3], true],
      ['*', [2], false],
    ]);
  });

  it('reads equations and checks their arithmetic, leaving out the boxed answer', () => {
    const steps = reasoningSteps('7+5=12. 12-3=8. \\boxed{8}');
    expect(steps.map((s) => [s.text, s.arithmeticOk])).toEqual([
      ['7+5=12', true],
      ['12-3=8', false],
    ]);
  });
});

describe('alignPlan', () => {
  it('aligns a gold plan one to one with no flaw', () => {
    const a = alignPlan(renderQuestion(ann), renderPlan(ann.steps), renderComputation(ann.steps));
    expect(a.rows.map((r) => [r.plan?.text, r.reasoning.map((s) => s.text), r.flaw])).toEqual([
      ['Start at 7.', [], null],
      ['Add 5.', ['7+5=12'], null],
      ['Subtract 3.', ['12-3=9'], null],
      ['Double it.', ['9*2=18'], null],
    ]);
    expect(a.firstFlawRow).toBeNull();
    expect(a.astray).toBeNull();
  });

  it('flags the misread loss and the equation that follows it', () => {
    const misread = misreadLosses(ann.steps)!;
    const a = alignPlan(renderQuestion(ann), renderPlan(misread), renderComputation(misread));
    expect(a.firstFlawRow).toBe(2);
    const row = a.rows[2];
    expect(row.flaw).toBe('loss-as-gain');
    expect(row.event?.text).toBe('She loses 3.');
    expect(row.event?.loss).toBe(true);
    expect(row.plan?.text).toBe('Add 3.');
    expect(row.note).toContain('a loss');
    expect(a.astray?.text).toBe('12+3=15');
    expect(
      a.rows
        .flatMap((r) => r.reasoning)
        .filter((s) => s.followsFlaw)
        .map((s) => s.text),
    ).toEqual(['12+3=15']);
    expect(lossAsGainCount(a)).toBe(1);
  });

  it('on every held-out problem with a loss, flags exactly the misread steps', () => {
    const specs = tinySpecs({ split: 'heldout', count: 120, seed: 7 }).filter((s) => misreadLosses(s.steps) !== null);
    expect(specs.length).toBeGreaterThan(20);
    for (const spec of specs) {
      const misread = misreadLosses(spec.steps)!;
      const a = alignPlan(renderQuestion(spec), renderPlan(misread), renderComputation(misread));
      const losses = spec.steps.filter((s) => s.kind === 'sub').length;
      expect(lossAsGainCount(a), renderQuestion(spec)).toBe(losses);
      expect(a.rows.filter((r) => r.flaw !== null && r.flaw !== 'loss-as-gain')).toEqual([]);
      // each misread step is carried out by the equation under it, and that is where the reasoning went astray
      for (const r of a.rows.filter((x) => x.flaw === 'loss-as-gain'))
        expect(r.reasoning.map((s) => s.equation?.op)).toEqual(['+']);
      expect(a.astray).toBe(a.rows[a.firstFlawRow!].reasoning[0]);
      const gold = alignPlan(renderQuestion(spec), renderPlan(spec.steps), renderComputation(spec.steps));
      expect(gold.firstFlawRow, renderQuestion(spec)).toBeNull();
      expect(gold.unmatched).toEqual([]);
    }
  });

  it('names other planted mistakes: a wrong number, a wrong operation, a skipped step', () => {
    const rng = new Rng(3);
    const kinds = new Set<string>();
    for (const spec of tinySpecs({ split: 'heldout', count: 200, seed: 11 })) {
      const flawed = flawSteps(rng, spec.steps);
      if (!flawed) continue;
      const a = alignPlan(renderQuestion(spec), renderPlan(flawed), renderComputation(flawed));
      expect(a.firstFlawRow, `${renderQuestion(spec)} | ${renderPlan(flawed)}`).not.toBeNull();
      kinds.add(a.rows[a.firstFlawRow!].flaw!);
    }
    expect([...kinds].toSorted()).toEqual(expect.arrayContaining(['missing-step', 'wrong-number']));
  });

  it('reads free-form plans of a larger model', () => {
    const a = alignPlan(
      'Tom has 12 boxes. He sells 5 of them. How many are left?',
      'First note that Tom starts with 12 boxes. Then add the 5 boxes he sold.',
      'Starting from 12, we add 5: 12 + 5 = 17. So \\boxed{17}.',
    );
    expect(a.rows[1].flaw).toBe('loss-as-gain');
    expect(a.astray?.text).toBe('12 + 5 = 17');
  });
});
