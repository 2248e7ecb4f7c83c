// The pre-emptible answer checker in Node (src/rl/verifier/checker.ts with the worker_threads host of
// src/cli/checker-node.ts): inputs whose evaluation is expensive answer `timeout` (or another false verdict)
// within the hard limit plus a margin, a worker killed at the limit is replaced, and the next check still works.
import { afterAll, describe, expect, it } from 'vitest';
import { nodeAnswerChecker } from '../../../src/cli/checker-node.ts';
import {
  checkAll,
  inThreadChecker,
  preemptibleChecker,
  type CheckReply,
  type CheckRequest,
} from '../../../src/rl/verifier/checker.ts';
import { verifyMath } from '../../../src/rl/verifier/index.ts';

const LIMIT_MS = 400;
// Timer and message latency on a loaded 2-core machine; far below the seconds to minutes these inputs take unbounded.
const MARGIN_MS = 600;

const matrix = (n: number, name: string) =>
  `\\begin{pmatrix}${Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_cell, j) => `${name}_{${i}${j}}`).join('&')).join('\\\\')}\\end{pmatrix}`;

/** One synchronous engine call of 0.5-1 s on a 2-core machine (a product of three symbolic 5x5 matrices). */
const SLOW = `\\boxed{${matrix(5, 'x')}${matrix(5, 'y')}${matrix(5, 'z')}}`;
const KILL_LIMIT_MS = 100;

/** Inputs whose evaluation is expensive: before the guards and the worker, several ran for minutes. */
export const EXPENSIVE: Array<[name: string, gold: string, pred: string]> = [
  ['a product of three symbolic 5x5 matrices', '5', SLOW],
  ['a sum to 10^9', '5', '\\boxed{\\sum_{k=1}^{10^{9}} k}'],
  ['a sum to 10^9 as the gold', '\\sum_{k=1}^{10^{9}} k', '\\boxed{5}'],
  ['a product to 10^9', '5', '\\boxed{\\prod_{k=1}^{10^9} \\left(1+\\frac{1}{k}\\right)}'],
  ['a product to 10^5', '5', '\\boxed{\\prod_{k=1}^{100000} k}'],
  ['a sum of a million sines', '5', '\\boxed{\\sum_{k=1}^{10^{6}} \\sin(k)}'],
  ['a factorial of a million', '1000000!', '\\boxed{1000000!}'],
  ['a tower of powers', '5', '\\boxed{2^{2^{2^{2^{2^{2}}}}}}'],
  ['a huge binomial', '5', '\\boxed{\\binom{10^9}{5 \\cdot 10^8}}'],
  [
    'a long written-out sum',
    '5',
    `\\boxed{${Array.from({ length: 300 }, (_, i) => `\\frac{${i + 1}}{x+${i}}`).join('+')}}`,
  ],
];

describe('pre-emptible answer checker (Node worker thread)', () => {
  const restarts: string[] = [];
  const checker = nodeAnswerChecker({ limitMs: LIMIT_MS, onRestart: (why) => restarts.push(why) });
  afterAll(() => checker.close());

  it('starts and answers plain checks', async () => {
    expect(await checker.check('\\frac{1}{2}', 'so \\boxed{0.5}')).toMatchObject({ correct: true, reason: 'equal' });
    expect(await checker.check('3', '\\boxed{4}')).toMatchObject({ correct: false, reason: 'not-equal' });
  }, 60_000);

  it.each(EXPENSIVE)(
    '%s: a false verdict within the limit, and the next check still works',
    async (_name, gold, pred) => {
      const t0 = performance.now();
      const r = await checker.check(gold, pred);
      const ms = performance.now() - t0;
      expect(r.correct).toBe(false);
      expect(ms).toBeLessThan(LIMIT_MS + MARGIN_MS);
      expect(await checker.check('7', 'the answer is \\boxed{7}')).toMatchObject({ correct: true });
    },
    60_000,
  );

  it('kills the worker of a check that overruns (one synchronous engine call) and says timeout', async () => {
    const why: string[] = [];
    const killer = nodeAnswerChecker({ limitMs: KILL_LIMIT_MS, onRestart: (w) => why.push(w) });
    try {
      await killer.check('1', '\\boxed{1}'); // started and warm
      const t0 = performance.now();
      const r = await killer.check('5', SLOW);
      expect(performance.now() - t0).toBeLessThan(KILL_LIMIT_MS + MARGIN_MS);
      expect(r).toEqual({ correct: false, extracted: null, reason: 'timeout' });
      expect(why).toEqual([`check ran past its ${KILL_LIMIT_MS} ms limit`]);
      expect(await killer.check('12', '\\boxed{12}')).toMatchObject({ correct: true });
      // a batch keeps its order around a killed check
      const rs = await checkAll(killer, [
        { gold: '1', prediction: '\\boxed{1}' },
        { gold: '5', prediction: SLOW },
        { gold: '2', prediction: '\\boxed{3}' },
        { gold: '4', prediction: '\\boxed{4}' },
      ]);
      expect(rs.map((x) => x.reason)).toEqual(['equal', 'timeout', 'not-equal', 'equal']);
      expect(why).toHaveLength(2);
    } finally {
      killer.close();
    }
  }, 60_000);

  it('answers checks still queued at close() as timeouts, and refuses new ones', async () => {
    const c = nodeAnswerChecker({ limitMs: LIMIT_MS });
    const pending = c.check('1', '\\boxed{1}');
    c.close();
    expect(await pending).toMatchObject({ correct: false, reason: 'timeout' });
    await expect(c.check('1', '\\boxed{1}')).rejects.toThrow(/after close/);
  });
});

describe('pre-emptible checker: repeated pairs', () => {
  it('asks the worker once per distinct (gold, prediction), and again after a timeout', async () => {
    const posted: CheckRequest[] = [];
    /** a worker on this thread that answers with verifyMath, except prediction "hang", which it never answers */
    const spawn = () => {
      let reply: (r: CheckReply) => void = () => {};
      return {
        post(request: CheckRequest) {
          posted.push(request);
          if (request.prediction === 'hang') return;
          queueMicrotask(() =>
            reply({ type: 'result', id: request.id, result: verifyMath(request.gold, request.prediction) }),
          );
        },
        listen(onReply: (r: CheckReply) => void) {
          reply = onReply;
          queueMicrotask(() => reply({ type: 'ready' }));
        },
        terminate() {},
      };
    };
    const checker = preemptibleChecker(spawn, { limitMs: 50 });
    try {
      const pairs = ['\\boxed{4}', '\\boxed{5}', '\\boxed{4}', '\\boxed{4}', '\\boxed{5}'].map((prediction) => ({
        gold: '4',
        prediction,
      }));
      const first = await checkAll(checker, pairs);
      expect(first.map((r) => r.correct)).toEqual([true, false, true, true, false]);
      expect(posted.map((p) => p.prediction)).toEqual(['\\boxed{4}', '\\boxed{5}']);
      // a later batch with the same pairs needs no round trip; another gold is another pair
      expect((await checker.check('4', '\\boxed{4}')).correct).toBe(true);
      expect((await checker.check('5', '\\boxed{5}')).correct).toBe(true);
      expect(posted).toHaveLength(3);
      // a timeout is not remembered: the pair is checked again
      expect((await checker.check('4', 'hang')).reason).toBe('timeout');
      expect((await checker.check('4', 'hang')).reason).toBe('timeout');
      expect(posted.filter((p) => p.prediction === 'hang')).toHaveLength(2);
    } finally {
      checker.close();
    }
  });
});

describe('in-thread checker', () => {
  it('gives the verdicts of verifyMath', async () => {
    const c = inThreadChecker();
    expect(await c.check('2', '\\boxed{2}')).toMatchObject({ correct: true, reason: 'equal' });
  });
});
