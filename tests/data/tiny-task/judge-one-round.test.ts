// The one-round judge dialogue of the judge-trained embedded model (public/models/tiny-rema-judge) and the
// tiny-judge preset: the plan ends the dialogue with [FINISH] in round one; the checking plan's answer is the
// right computation and the right verdict (checked by an independent evaluator of the equations); the shortcut's
// verdict is right only about half the time; and every dialogue of the preset's held-out items fits the model's
// 256-token context with the real tokenizer, with room for the reasoning agent's answer.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metaChat, reasoningChat } from '../../../src/data/tiny-task/chats.ts';
import { judgeOneRoundChats } from '../../../src/data/tiny-task/corpus.ts';
import { tinyJudgeItems } from '../../../src/data/tiny-task/dataset.ts';
import { JUDGE_CHECK_PLAN, JUDGE_SHORTCUT_PLAN, judgeOneRoundTrace } from '../../../src/data/tiny-task/judge.ts';
import {
  reasoningFirstUserMessage,
  TINY_JUDGE_META_SYSTEM,
  TINY_JUDGE_REASONING_SYSTEM,
} from '../../../src/data/tiny-task/prompts.ts';
import { createHfTokenizer } from '../../../src/data/hf-tokenizer.ts';
import { TINY_DATA_SEED } from '../../../src/rl/problems.ts';
import { getPreset } from '../../../src/rl/presets.ts';

/** a op b = c holds (exact division), read here without the generator's code */
function holds(eq: string): boolean {
  const m = /^(\d+)([-+*/])(\d+)=(\d+)$/.exec(eq);
  if (!m) return false;
  const [a, b, c] = [Number(m[1]), Number(m[3]), Number(m[4])];
  if (m[2] === '+') return a + b === c;
  if (m[2] === '-') return a - b === c;
  if (m[2] === '*') return a * b === c;
  return a === b * c;
}

const finalOf = (line: string) => Number(/\\boxed\{(\d+)\}/.exec(line)![1]);

describe('one-round judge dialogue', () => {
  const items = tinyJudgeItems({ split: 'train', count: 300, seed: 9 });

  it('ends the dialogue in round one: the plan carries [FINISH], one reasoning answer gives the verdict', () => {
    for (const item of items.slice(0, 20))
      for (const kind of ['check', 'shortcut'] as const) {
        const turns = judgeOneRoundTrace(item, kind);
        expect(turns).toHaveLength(1);
        expect(turns[0].meta).toBe(`${kind === 'check' ? JUDGE_CHECK_PLAN : JUDGE_SHORTCUT_PLAN} [FINISH]`);
        expect(turns[0].reasoning).toMatch(/\[\[[AB]\]\]$/);
        const [meta, reasoning] = judgeOneRoundChats(item, kind, kind);
        // the planner's chat ends with its plan; the reasoning agent's with its one answer
        expect(meta.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
        expect(reasoning.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
      }
  });

  it('the meta-thinking agent sees only the instruction (as in the paper), the reasoning agent also both candidates', () => {
    for (const item of items.slice(0, 20)) {
      const [meta, reasoning] = judgeOneRoundChats(item, 'check', 'check');
      expect(meta.messages[1]).toEqual({ role: 'user', content: item.pair.instruction });
      for (const m of meta.messages) {
        expect(m.content).not.toContain(item.pair.responseA);
        expect(m.content).not.toContain(item.pair.responseB);
      }
      const first = reasoning.messages[1].content;
      expect(first).toBe(reasoningFirstUserMessage(item.question, `${JUDGE_CHECK_PLAN} [FINISH]`));
      for (const part of [item.pair.instruction, item.pair.responseA, item.pair.responseB])
        expect(first).toContain(part);
    }
  });

  it("the checking plan recomputes every equation right, subtracts B's answer and names the right candidate", () => {
    for (const item of items) {
      const answer = judgeOneRoundTrace(item, 'check')[0].reasoning;
      const m = /^(.*) (\d+)-(\d+)=(-?\d+)\. \[\[([AB])\]\]$/.exec(answer);
      expect(m, answer).not.toBeNull();
      const [, chain, reached, bFinal, difference, verdict] = m!;
      const equations = chain.replace(/\.$/, '').split('. ');
      for (const eq of equations) expect(holds(eq), `${eq} in ${answer}`).toBe(true);
      const [, lineA, lineB] = item.question.split('\n');
      // the recomputed chain is the right candidate's; its last value is the one B's answer is subtracted from
      const right = item.correct === 'A' ? lineA : lineB;
      for (const eq of equations) expect(right).toContain(`${eq}.`);
      expect(Number(reached)).toBe(finalOf(right));
      expect(Number(reached)).toBe(Number(equations.at(-1)!.split('=')[1]));
      expect(Number(bFinal)).toBe(finalOf(lineB));
      expect(Number(difference)).toBe(Number(reached) - Number(bFinal));
      // B exactly when the difference is 0
      expect(verdict).toBe(Number(difference) === 0 ? 'B' : 'A');
      expect(verdict).toBe(item.correct);
    }
  });

  it('the shortcut trusts A without looking, right only about half the time', () => {
    let right = 0;
    for (const item of items) {
      expect(judgeOneRoundTrace(item, 'shortcut')[0].reasoning).toBe('[[A]]');
      if (item.correct === 'A') right++;
    }
    expect(right / items.length).toBeGreaterThan(0.4);
    expect(right / items.length).toBeLessThan(0.6);
  });

  it("fits the 256-token context on the tiny-judge preset's held-out items, with the answer inside the turn cap", () => {
    const dir = join(import.meta.dirname, '../../../public/models/tiny-rema');
    const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as object;
    const tok = createHfTokenizer(read('tokenizer.json'), read('tokenizer_config.json'), { where: dir });
    const preset = getPreset('tiny-judge');
    const heldout = tinyJudgeItems({ split: 'heldout', count: preset.evalSize, seed: TINY_DATA_SEED });
    for (const item of heldout) {
      const turns = judgeOneRoundTrace(item, 'check');
      const render = (chat: ReturnType<typeof metaChat>, open: boolean) =>
        tok.encode(tok.applyChatTemplate(open ? chat.slice(0, -1) : chat, { addGenerationPrompt: open })).length;
      const reasoning = reasoningChat(TINY_JUDGE_REASONING_SYSTEM, item.question, turns);
      const meta = metaChat(TINY_JUDGE_META_SYSTEM, item.pair.instruction, turns);
      expect(render(reasoning, false)).toBeLessThanOrEqual(256);
      expect(render(meta, false)).toBeLessThanOrEqual(256);
      expect(render(reasoning, true)).toBeLessThanOrEqual(preset.maxPromptTokens);
      expect(tok.encode(turns[0].reasoning).length).toBeLessThan(preset.maxTokensPerTurn);
    }
  });
});
