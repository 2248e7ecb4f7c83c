// GRPO-like request groups for the shared-context tests (model/prefix-score.ts, model/prefix-train.ts): `groups`
// prompts of 6-13 tokens, each with `G` completions of 1-9 tokens, the completions scored.
import type { ScoreRequest } from '../../../src/engine/policy/policy.ts';
import { Rng } from '../../../src/util/rng.ts';

export function groupRequests(
  vocabSize: number,
  groups: number,
  G: number,
  adapter: string | null,
  seed: number,
): ScoreRequest[] {
  const rng = new Rng(seed);
  const id = () => rng.int(0, vocabSize - 1);
  const out: ScoreRequest[] = [];
  for (let g = 0; g < groups; g++) {
    const prompt = Array.from({ length: 6 + ((g * 5) % 8) }, id);
    for (let k = 0; k < G; k++) {
      const completion = Array.from({ length: 1 + ((g + 3 * k) % 9) }, id);
      const tokens = [...prompt, ...completion];
      out.push({ tokens, positions: completion.map((_, t) => prompt.length + t), adapter });
    }
  }
  return out;
}
