// The shipped tiny-rema was trained on stages 1-3 of scripts/tiny/pretrain-all.ts (`--mix full`, with and without
// misread plans) and the SFT ablation's base on `--mix direct`; whatever later changes the judge stage's chats
// (`--mix judge`, e.g. the meta-thinking agent seeing only the instruction), these mixtures must stay byte-identical
// so the recorded models remain reproducible. Hashes of a fixed sample of each, computed on the code they were
// trained with.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MIX } from '../../../src/data/tiny-task/traces.ts';
import { Rng } from '../../../src/util/rng.ts';
import { drawDirectAnswer, drawExample, PRETRAIN_MIX } from '../../../scripts/tiny/mixture.ts';

function sample<T>(draw: (rng: Rng) => T[], draws: number, seed: number): T[] {
  const rng = new Rng(seed);
  const out: T[] = [];
  for (let i = 0; i < draws; i++) out.push(...draw(rng));
  return out;
}

const digest = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex').slice(0, 16);

describe("tiny-rema's supervised mixtures", () => {
  it('--mix full (stages 1-2) draws the same chats, judge dialogues included', () => {
    const chats = sample((rng) => drawExample(rng, PRETRAIN_MIX), 600, 1);
    expect(chats.filter((c) => c.kind === 'judge-meta').length).toBeGreaterThan(30);
    expect(digest(chats)).toBe('99a59b1037fd41c8');
  });

  it('--mix full --misread 0.55 (stage 3) draws the same chats', () => {
    const chats = sample(
      (rng) => drawExample(rng, { ...PRETRAIN_MIX, traces: { ...DEFAULT_MIX, misread: 0.55 } }),
      600,
      3,
    );
    expect(digest(chats)).toBe('1752ee2d41384842');
  });

  it('--mix direct (the SFT ablation base) draws the same chats', () => {
    expect(digest(sample(drawDirectAnswer, 200, 5))).toBe('c77e0ce9ccf67636');
  });
});
