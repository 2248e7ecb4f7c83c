// Words for the tiny task: the question a problem is asked as, the plan a meta-thinking agent writes for it, and
// the computation a reasoning agent writes. Kept short on purpose: the model is tiny and every token costs
// rollout time.

import type { TinyProblemSpec, TinyStep } from './generator.ts';

/** e.g. "Ann has 3 bags of 4 figs. She buys 5 more. She keeps half. How many figs now?" */
export function renderQuestion(spec: TinyProblemSpec): string {
  const parts: string[] = [];
  for (const step of spec.steps) parts.push(sentenceOf(step, spec));
  parts.push(`How many ${spec.item} now?`);
  return parts.join(' ');
}

function sentenceOf(step: TinyStep, spec: TinyProblemSpec): string {
  const p = spec.pronoun;
  switch (step.kind) {
    case 'start':
      return `${spec.name} has ${step.value} ${spec.item}.`;
    case 'startBags':
      return `${spec.name} has ${step.bags} bags of ${step.each} ${spec.item}.`;
    case 'add':
      return `${p} ${pickVerb(['buys', 'finds', 'gets'], spec, step.n)} ${step.n} more.`;
    case 'sub':
      return `${p} ${pickVerb(['gives away', 'loses', 'sells'], spec, step.n)} ${step.n}.`;
    case 'addBags':
      return `${p} buys ${step.bags} bags of ${step.each} more.`;
    case 'mul':
      return `${p} ${step.factor === 2 ? 'doubles' : 'triples'} them.`;
    case 'div':
      return `${p} keeps ${step.divisor === 2 ? 'half' : 'a third'}.`;
  }
}

/** A verb chosen deterministically from the problem (so rendering is a pure function of the spec). */
function pickVerb(verbs: readonly string[], spec: TinyProblemSpec, salt: number): string {
  return verbs[(spec.name.length + spec.item.length + salt) % verbs.length];
}

/** The plan clause for one step, e.g. "Add 5." */
export function planClause(step: TinyStep): string {
  switch (step.kind) {
    case 'start':
      return `Start at ${step.value}.`;
    case 'startBags':
      return `Multiply ${step.bags} by ${step.each}.`;
    case 'add':
      return `Add ${step.n}.`;
    case 'sub':
      return `Subtract ${step.n}.`;
    case 'addBags':
      return `Add ${step.bags}*${step.each}.`;
    case 'mul':
      return step.factor === 2 ? 'Double it.' : 'Triple it.';
    case 'div':
      return step.divisor === 2 ? 'Halve it.' : 'Divide by 3.';
  }
}

/** The whole plan: one clause per step, e.g. "Multiply 3 by 4. Add 5. Halve it." */
export function renderPlan(steps: readonly TinyStep[]): string {
  return steps.map(planClause).join(' ');
}

/** A planted arithmetic error: the result of equation `equation` (0-based) is off by `delta`. */
export interface Tamper {
  equation: number;
  delta: number;
}

/**
 * The worked computation, one equation per operation, e.g. "3*4=12. 12+5=17." Values come from the steps as
 * given (so a flawed plan's steps give that plan's faithful, wrong computation). With `tamper`, one equation's
 * result is wrong and the following equations carry on from the wrong value (a judge task's bad candidate).
 */
export function renderComputation(steps: readonly TinyStep[], tamper?: Tamper): string {
  return computationEquations(steps, tamper)
    .map((e) => `${e}.`)
    .join(' ');
}

/** The equations of the computation without the trailing full stops, e.g. ["3*4=12", "12+5=17"]. */
export function computationEquations(steps: readonly TinyStep[], tamper?: Tamper): string[] {
  const equations: string[] = [];
  let total = 0;
  const emit = (lhs: string, value: number): number => {
    const shown = tamper && tamper.equation === equations.length ? value + tamper.delta : value;
    equations.push(`${lhs}=${shown}`);
    return shown;
  };
  for (const step of steps) {
    switch (step.kind) {
      case 'start':
        total = step.value;
        break;
      case 'startBags':
        total = emit(`${step.bags}*${step.each}`, step.bags * step.each);
        break;
      case 'add':
        total = emit(`${total}+${step.n}`, total + step.n);
        break;
      case 'sub':
        total = emit(`${total}-${step.n}`, total - step.n);
        break;
      case 'addBags': {
        const product = emit(`${step.bags}*${step.each}`, step.bags * step.each);
        total = emit(`${total}+${product}`, total + product);
        break;
      }
      case 'mul':
        total = emit(`${total}*${step.factor}`, total * step.factor);
        break;
      case 'div':
        // a tampered value may not divide evenly: keep the candidate integer-looking by flooring
        total = emit(`${total}/${step.divisor}`, Math.floor(total / step.divisor));
        break;
    }
  }
  return equations;
}

export function boxed(answer: number | string): string {
  return `\\boxed{${answer}}`;
}
