// Plan-to-reasoning alignment, for teaching decomposition: which of the reasoning agent's computations carries out
// which of the meta-thinking agent's plan steps, and which plan step misreads the question. Steps are matched by
// the numbers and operations they mention (words such as "Subtract", "doubles", "keeps half" and the symbols of an
// equation), in order, so the same function reads the tiny task's plans ("Start at 7. Add 5. Subtract 3.") and
// free-form plans of larger models. Pure: the plan view, the presenter's caption and the tests share it.

export type Op = '+' | '-' | '*' | '/';

/** What one sentence or equation mentions. */
export interface StepFacts {
  text: string;
  /** operations in the order they appear (words first, then symbols between numbers) */
  ops: Op[];
  numbers: number[];
}

/** A sentence of the question that changes the amount (or sets it: op 'start'). */
export interface QuestionEvent extends Omit<StepFacts, 'ops'> {
  op: Op | 'start';
  /** the sentence reads as a loss ("gives away", "loses", "sells", ...) */
  loss: boolean;
}

export interface Equation {
  a: number;
  op: Op;
  b: number;
  result: number;
}

export interface ReasoningStep extends StepFacts {
  index: number;
  equation: Equation | null;
  /** the equation's own arithmetic is right (true for steps that are not equations) */
  arithmeticOk: boolean;
  /** carries out a flawed plan step */
  followsFlaw: boolean;
}

/** loss-as-gain: a loss in the question planned as an addition (the embedded model's deliberate misreading) */
export type PlanFlaw = 'loss-as-gain' | 'wrong-operation' | 'wrong-number' | 'missing-step';

export interface AlignedRow {
  /** the question sentence this row is about (null: a plan step the question does not call for) */
  event: QuestionEvent | null;
  /** the plan step (null: a question event the plan skipped) */
  plan: (StepFacts & { index: number }) | null;
  flaw: PlanFlaw | null;
  /** one line saying what is wrong, e.g. 'the question says "She gives away 3." but the plan says "Add 3."' */
  note: string | null;
  reasoning: ReasoningStep[];
}

export interface Alignment {
  rows: AlignedRow[];
  /** reasoning steps no plan step accounts for (before the first plan step with a match) */
  unmatched: ReasoningStep[];
  /** index (into rows) of the first flawed plan step, or null */
  firstFlawRow: number | null;
  /** the first reasoning step that carries out a flawed plan step: where the reasoning agent went astray */
  astray: ReasoningStep | null;
}

const NUMBER = /\d+(?:\.\d+)?/g;
const EQUATION = /(\d+(?:\.\d+)?)\s*([+\-*/×÷x])\s*(\d+(?:\.\d+)?)\s*=\s*(-?\d+(?:\.\d+)?)/g;
const SYMBOL_OP = /\d\s*([+\-*/×÷])\s*\d/g;

/** Operation words: the first that appears in a step is its main operation. Each may imply a number. */
const OP_WORDS: readonly { pattern: RegExp; op: Op; implies?: number; loss?: boolean }[] = [
  {
    pattern: /\b(?:gives? away|giving away|loses|lose|lost|sells?|sold|eats?|spends?|uses? up|drops?)\b/i,
    op: '-',
    loss: true,
  },
  { pattern: /\b(?:subtract\w*|minus|takes? away|remove\w*|decrease\w*|less)\b/i, op: '-' },
  { pattern: /\bdoubl\w*|\btwice\b/i, op: '*', implies: 2 },
  { pattern: /\btripl\w*/i, op: '*', implies: 3 },
  { pattern: /\bhalv\w*|\bhalf\b/i, op: '/', implies: 2 },
  { pattern: /\ba third\b|\bthird of\b/i, op: '/', implies: 3 },
  { pattern: /\b(?:multipl\w*|times|product)\b/i, op: '*' },
  { pattern: /\b(?:divid\w*|split\w*|quotient)\b/i, op: '/' },
  {
    pattern: /\b(?:add\w*|plus|sum|more|buys?|bought|finds?|found|gets?|got|receives?|earns?|gains?|increase\w*)\b/i,
    op: '+',
  },
];

const SYMBOLS: Readonly<Record<string, Op>> = { '+': '+', '-': '-', '*': '*', '/': '/', '×': '*', '÷': '/', x: '*' };

/** Sentences of a text (full stops inside numbers such as 3.5 do not split). */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?;])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && /[\p{L}\d]/u.test(s));
}

function numbersIn(text: string): number[] {
  return [...text.matchAll(NUMBER)].map((m) => Number(m[0]));
}

/** The operations and numbers one step mentions. */
export function stepFacts(text: string): StepFacts {
  const words = OP_WORDS.map((w) => ({ w, at: text.search(w.pattern) }))
    .filter((x) => x.at >= 0)
    .toSorted((x, y) => x.at - y.at);
  const ops: Op[] = [];
  const numbers = numbersIn(text);
  for (const { w } of words) {
    if (!ops.includes(w.op)) ops.push(w.op);
    if (w.implies !== undefined && !numbers.includes(w.implies)) numbers.push(w.implies);
  }
  for (const m of text.matchAll(SYMBOL_OP)) {
    const op = SYMBOLS[m[1]];
    if (op && !ops.includes(op)) ops.push(op);
  }
  return { text, ops, numbers };
}

/** A question sentence as an event: the first sentence with a number and no operation word sets the amount. */
export function questionEvents(question: string): QuestionEvent[] {
  const events: QuestionEvent[] = [];
  for (const sentence of splitSentences(question)) {
    if (/\?\s*$/.test(sentence)) continue;
    const facts = stepFacts(sentence);
    const loss = OP_WORDS.some((w) => w.loss && w.pattern.test(sentence));
    const startsAmount =
      events.length === 0 &&
      /\b(?:has|had|have|starts? with|there are|there were)\b/i.test(sentence) &&
      facts.numbers.length > 0;
    const bags = /\bbags? of\b|\bboxes of\b|\bpacks? of\b/i.test(sentence);
    if (startsAmount) {
      events.push({ text: sentence, op: 'start', numbers: facts.numbers, loss: false });
      continue;
    }
    const op = facts.ops[0] ?? (bags ? '+' : null);
    if (op === null) continue;
    events.push({ text: sentence, op, numbers: facts.numbers, loss });
  }
  return events;
}

/** The reasoning agent's steps: its equations ("12-3=9") when it writes any, else its sentences. The boxed answer is left out. */
export function reasoningSteps(reasoning: string): ReasoningStep[] {
  const text = reasoning.replace(/\\boxed\{[^}]*\}/g, ' ');
  const equations = [...text.matchAll(EQUATION)];
  if (equations.length > 0) {
    return equations.map((m, index) => {
      const equation: Equation = { a: Number(m[1]), op: SYMBOLS[m[2]], b: Number(m[3]), result: Number(m[4]) };
      return {
        index,
        text: m[0],
        ops: [equation.op],
        numbers: [equation.a, equation.b],
        equation,
        arithmeticOk: Math.abs(apply(equation.a, equation.op, equation.b) - equation.result) < 1e-9,
        followsFlaw: false,
      };
    });
  }
  return splitSentences(text).map((s, index) => ({
    ...stepFacts(s),
    index,
    equation: null,
    arithmeticOk: true,
    followsFlaw: false,
  }));
}

function apply(a: number, op: Op, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
  }
}

/** How well two steps match: 2 for the same main operation, 1 per shared number. */
function score(
  plan: { ops: readonly (Op | 'start')[]; numbers: readonly number[] },
  other: { ops: readonly (Op | 'start')[]; numbers: readonly number[] },
): number {
  const opMatch = plan.ops.length > 0 && other.ops.length > 0 && plan.ops.some((o) => other.ops.includes(o)) ? 2 : 0;
  const shared = new Set(other.numbers.filter((n) => plan.numbers.includes(n))).size;
  return opMatch + shared;
}

/**
 * In order: each item goes to the best-scoring target at or after the previous item's target (ties: the earlier
 * target); an item that matches nothing (score 0) stays with the previous target, or is unmatched (-1) before any.
 */
function monotoneMatch<T, U>(
  items: readonly T[],
  targets: readonly U[],
  scoreOf: (target: U, item: T) => number,
  /** how much less the current target scores for this item, given what it already took (e.g. the same operation twice) */
  repeatPenalty: (taken: readonly T[], item: T) => number,
  minScore = 1,
): number[] {
  const out: number[] = [];
  let cur = 0;
  let matchedAny = false;
  const taken: T[] = [];
  for (const item of items) {
    let best = -1;
    let bestScore = minScore - 1;
    for (let j = cur; j < targets.length; j++) {
      const s = scoreOf(targets[j], item) - (matchedAny && j === cur ? repeatPenalty(taken, item) : 0);
      if (s > bestScore) {
        best = j;
        bestScore = s;
      }
    }
    if (best >= 0) {
      if (best !== cur || !matchedAny) taken.length = 0;
      cur = best;
      matchedAny = true;
      taken.push(item);
      out.push(best);
    } else out.push(matchedAny ? cur : -1);
  }
  return out;
}

function describeFlaw(flaw: PlanFlaw, event: QuestionEvent, plan: StepFacts | null): string {
  switch (flaw) {
    case 'loss-as-gain':
      return `the question says "${event.text}" (a loss) but the plan says "${plan?.text}" (a gain)`;
    case 'wrong-operation':
      return `the question says "${event.text}" but the plan says "${plan?.text}"`;
    case 'wrong-number':
      return `the question says "${event.text}" but the plan uses ${plan?.numbers.join(', ')}`;
    case 'missing-step':
      return `the plan skips "${event.text}"`;
  }
}

function flawOf(event: QuestionEvent, plan: StepFacts): PlanFlaw | null {
  if (event.op !== 'start') {
    const main = plan.ops[0];
    if (main !== undefined && main !== event.op) return event.loss && main === '+' ? 'loss-as-gain' : 'wrong-operation';
  }
  // as multisets: "2 bags of 2" needs two 2s
  const left = [...plan.numbers];
  for (const n of event.numbers) {
    const at = left.indexOf(n);
    if (at < 0) return 'wrong-number';
    left.splice(at, 1);
  }
  return null;
}

/**
 * Aligns the question's events, the plan's steps and the reasoning agent's steps. Plan steps with neither an
 * operation nor a number (e.g. "Confirm the answer.") are left out.
 */
export function alignPlan(question: string, plan: string, reasoning: string): Alignment {
  const events = questionEvents(question);
  const planSteps = splitSentences(plan)
    .map((s, index) => ({ ...stepFacts(s), index }))
    .filter((p) => p.ops.length > 0 || p.numbers.length > 0);
  const steps = reasoningSteps(reasoning);

  // events -> plan steps (each plan step carries out at most one event, in order)
  const eventToPlan: number[] = [];
  let next = 0;
  for (const event of events) {
    let best = -1;
    let bestScore = 0;
    for (let j = next; j < planSteps.length; j++) {
      const s = score(planSteps[j], { ops: [event.op], numbers: event.numbers });
      if (s > bestScore) {
        best = j;
        bestScore = s;
      }
    }
    eventToPlan.push(best);
    if (best >= 0) next = best + 1;
  }

  const rows: AlignedRow[] = [];
  const rowOfPlan = new Map<number, AlignedRow>();
  let planCursor = 0;
  const pushPlanRow = (j: number, event: QuestionEvent | null) => {
    const p = planSteps[j];
    const flaw = event ? flawOf(event, p) : null;
    const row: AlignedRow = {
      event,
      plan: p,
      flaw,
      note: flaw && event ? describeFlaw(flaw, event, p) : null,
      reasoning: [],
    };
    rows.push(row);
    rowOfPlan.set(j, row);
  };
  events.forEach((event, e) => {
    const j = eventToPlan[e];
    if (j < 0) {
      rows.push({
        event,
        plan: null,
        flaw: 'missing-step',
        note: describeFlaw('missing-step', event, null),
        reasoning: [],
      });
      return;
    }
    while (planCursor < j) pushPlanRow(planCursor++, null);
    pushPlanRow(planCursor++, event);
  });
  while (planCursor < planSteps.length) pushPlanRow(planCursor++, null);

  // reasoning steps -> plan steps
  // a plan step is carried out by one equation per operation it names: the same operation again belongs to a later step when one scores as well
  const stepToPlan = monotoneMatch(
    steps,
    planSteps,
    (p, r) => score(p, r),
    (taken, r) => (taken.some((t) => t.ops[0] === r.ops[0]) ? 0.5 : 0),
  );
  const unmatched: ReasoningStep[] = [];
  steps.forEach((r, i) => {
    const row = stepToPlan[i] >= 0 ? rowOfPlan.get(stepToPlan[i]) : undefined;
    if (!row) {
      unmatched.push(r);
      return;
    }
    r.followsFlaw = row.flaw !== null;
    row.reasoning.push(r);
  });

  const firstFlawRow = rows.findIndex((r) => r.flaw !== null);
  const astray = steps.find((r) => r.followsFlaw) ?? null;
  return { rows, unmatched, firstFlawRow: firstFlawRow < 0 ? null : firstFlawRow, astray };
}

/** How many of the plan's steps misread a loss as a gain (the count the presenter's caption and the timeline track). */
export function lossAsGainCount(a: Alignment): number {
  return a.rows.filter((r) => r.flaw === 'loss-as-gain').length;
}
