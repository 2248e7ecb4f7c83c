// The parts of a followed rollout the plan views show: the first plan, the reasoning agent's answer to it, and
// the turns after (multi-turn: "Confirm the answer. [FINISH]" and the boxed answer).
import type { FollowedRollout } from '../../worker/protocol.ts';

export interface FollowedText {
  plan: string;
  reasoning: string;
  later: FollowedRollout['turns'];
}

export function followedText(r: FollowedRollout): FollowedText {
  const first = r.turns.findIndex((t) => t.role === 'meta');
  const plan = first >= 0 ? r.turns[first].text : '';
  const answerAt = r.turns.findIndex((t, i) => i > first && t.role === 'reasoning');
  const reasoning = answerAt >= 0 ? r.turns[answerAt].text : '';
  return { plan, reasoning, later: r.turns.slice(Math.max(first, answerAt) + 1) };
}
