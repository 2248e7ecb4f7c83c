// A plan intervention is graded by the session's answer checker (the page's: the checker's own worker), as training
// steps are, so the training worker never loads the LaTeX parser to grade it. The worker's session in-process on
// the real engine (tiny Qwen2.5 fixture) with the real in-thread checker, whose checks are counted.
import { expect, it } from 'vitest';
import type { WorkerEvent } from '../../../src/app/worker/protocol.ts';
import { createSession } from '../../../src/app/worker/session.ts';
import { inThreadChecker, type AnswerChecker } from '../../../src/rl/verifier/checker.ts';
import { fixtureConfig, folderFiles, TINY_QWEN_FOLDER } from '../../helpers/app/session-driver.ts';

it('an intervention on a math problem grades its answers through the session checker', async () => {
  const real = inThreadChecker();
  const checked: string[] = [];
  const checker: AnswerChecker = {
    check: (gold, prediction) => (checked.push(gold), real.check(gold, prediction)),
    close: () => real.close(),
  };
  const events: WorkerEvent[] = [];
  const handle = createSession((e) => events.push(e), {
    gpu: undefined,
    modelsUrl: 'http://127.0.0.1:1/models/',
    dataUrl: 'http://127.0.0.1:1/data',
    checker,
  });
  const until = async (type: WorkerEvent['type']) => {
    for (let i = 0; i < 6000 && !events.some((e) => e.type === type || (e.type === 'error' && e.fatal)); i++)
      await new Promise((r) => setTimeout(r, 10));
    const e = events.find((x) => x.type === type);
    if (!e) throw new Error(`no ${type} event: ${JSON.stringify(events.filter((x) => x.type === 'error'))}`);
    return e;
  };
  handle({
    type: 'load',
    model: { kind: 'local', name: 'tiny-qwen', files: folderFiles(TINY_QWEN_FOLDER) },
    backend: 'wasm',
    config: fixtureConfig({ evalBeforeTrain: false }),
  });
  await until('ready');
  // the followed problem's rollout is graded after the load: wait for it, so only the intervention's checks follow
  for (let i = 0; i < 6000 && !events.some((e) => e.type === 'followed' && e.rollout.correct !== null); i++)
    await new Promise((r) => setTimeout(r, 10));
  const before = checked.length;
  expect(before).toBe(1);
  handle({
    type: 'intervene',
    requestId: 3,
    question: 'Ann has 3 apples and buys 2 more. How many?',
    gold: '5',
    plan: 'Add the numbers.',
    originalPlan: 'Add 3 and 2.',
  });
  const iv = await until('intervention');
  expect(iv.type === 'intervention' && iv.result.edited.plan).toBe('Add the numbers.');
  // the edited and the original plan's answers: one check each, against the gold
  expect(checked.slice(before)).toEqual(['5', '5']);
}, 120_000);
