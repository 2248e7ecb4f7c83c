// A real-model preset uses the paper's or the code's prompts; only presets of the embedded model
// (which knows no other prompts) use the tiny ones. Every ReMA protocol has a real-model preset with the paper's
// prompts and App. D.1 settings, and each builds its prompts and validates.
import { describe, expect, it } from 'vitest';
import { PRESET_NAMES, getPreset, TINY_MODEL_NAME } from '../../../src/rl/presets.ts';
import { promptsFor } from '../../../src/rl/prompts/index.ts';
import { validateConfig } from '../../../src/rl/config.ts';
import * as paper from '../../../src/rl/prompts/paper.ts';

describe('preset prompt sets', () => {
  it("tiny prompts exactly for the embedded models, the paper's or the code's for every other model", () => {
    for (const name of PRESET_NAMES) {
      const c = getPreset(name);
      // the embedded models (tiny-rema and its judge-trained sibling) know only the tiny prompts
      const embedded = c.modelSource === 'embedded' && [TINY_MODEL_NAME, 'tiny-rema-judge'].includes(c.model);
      if (embedded) expect(c.prompts, name).toBe('tiny');
      else expect(['paper', 'code'], name).toContain(c.prompts);
      expect(validateConfig(c, name)).toEqual(c);
    }
  });

  it("a real-model preset for every protocol, with the paper's single-turn settings (App. D.1)", () => {
    const modes = new Set(
      PRESET_NAMES.map(getPreset)
        .filter((c) => c.modelSource !== 'embedded')
        .map((c) => c.mode),
    );
    expect([...modes].toSorted()).toEqual(['mrp-rl', 'multi-turn', 'single-turn', 'vrp', 'vrp-rl']);
    const st = getPreset('paper-singleturn-7b');
    expect(st).toMatchObject({
      model: 'Qwen/Qwen2.5-7B-Instruct',
      prompts: 'paper',
      groupSize: 4,
      lr: 5e-7,
      klBeta: 0.01,
      klPlacement: 'reward',
      advantage: 'reinforce++',
      phaseEpochs: 4,
      probeSamples: 10,
      planSamples: 4,
      maxTokensPerTurn: 2048,
    });
    const p = promptsFor(st.prompts, st.mode, 'math');
    expect(p.metaSystem).toBe(paper.SINGLE_TURN_PAPER_META_SYSTEM);
    expect(p.reasoningSystem).toBe(paper.SINGLE_TURN_PAPER_REASONING_SYSTEM);
    expect(promptsFor('paper', getPreset('paper-vrp-rl-7b').mode, 'math').singleSystem).toBe(paper.VRP_PAPER_SYSTEM);
    expect(promptsFor('paper', getPreset('paper-mrp-rl-7b').mode, 'math').singleSystem).toBe(paper.MRP_PAPER_SYSTEM);
  });
});
