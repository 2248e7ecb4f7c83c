// The paper's SFT presets against ReMA-public's LLaMA-Factory configs: ps_7b_full.yaml trains one model on both
// agents' dialogues (the start of shared-parameter RL), {mta,ra}_7b_full.yaml one model per agent; none sets weight
// decay, so Hugging Face's default (0) holds, not verl's RL default.
import { describe, expect, it } from 'vitest';
import { loadSftChats } from '../../src/cli/sft.ts';
import { configDefaults } from '../../src/rl/config.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { getSftPreset } from '../../src/rl/sft-presets.ts';
import { MULTI_TURN_REASONING_SYSTEM } from '../../src/rl/prompts/paper.ts';

/** The system prompts of a preset's chats, as loaded for training. */
async function systemPrompts(name: string): Promise<Set<string>> {
  const { config, sft } = getSftPreset(name);
  const sets = await loadSftChats(config, sft);
  return new Set(sets.flatMap((s) => s.chats.map((c) => c.messages.find((m) => m.role === 'system')?.content ?? '')));
}

describe('paper SFT presets', () => {
  it("paper-sft-7b trains one model on both agents' dialogues, as the shared-parameter RL it starts", async () => {
    const { config, sft } = getSftPreset('paper-sft-7b');
    const rl = getPreset('paper-multiturn-7b');
    expect(config.paramMode).toBe('shared');
    expect(rl.paramMode).toBe('shared');
    expect(config.model).toBe(rl.model);
    expect(sft.files).toHaveLength(2);
    const both = await systemPrompts('paper-sft-7b');
    const meta = await systemPrompts('paper-sft-mta-7b');
    const reasoning = await systemPrompts('paper-sft-ra-7b');
    // the reasoning agent's SFT system prompt is the RL one; the meta agent's is the SFT data's older one
    expect([...reasoning]).toEqual([MULTI_TURN_REASONING_SYSTEM]);
    expect(meta.size).toBe(1);
    expect([...meta][0]).not.toBe([...reasoning][0]);
    expect(both).toEqual(new Set([...meta, ...reasoning]));
  });

  it.each(['paper-sft-7b', 'paper-sft-mta-7b', 'paper-sft-ra-7b'])(
    '%s takes the optimiser from LLaMA-Factory / Hugging Face defaults, not verl',
    (name) => {
      const { config, sft } = getSftPreset(name);
      expect(configDefaults().weightDecay).toBeGreaterThan(0);
      expect(config.weightDecay).toBe(0);
      expect([config.adamBeta1, config.adamBeta2, config.gradClip]).toEqual([0.9, 0.999, 1]);
      expect([config.lr, config.lrSchedule, config.warmupSteps, sft.epochs, sft.cutoff]).toEqual([
        1e-5,
        'cosine',
        0,
        3,
        4096,
      ]);
    },
  );
});
