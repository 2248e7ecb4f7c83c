// Follow slice: the followed held-out problem's greedy rollouts of the current run (one per refresh, oldest
// first), which problem is followed and how often it is refreshed. The plan view's timeline and presenter mode
// read it; the first entry is also the page's first rollout on screen (it arrives before the start-up evaluation).
import type { StateCreator } from 'zustand/vanilla';
import { markStartup } from '../util/startup-marks.ts';
import type { FollowSlice, PlaygroundState } from './types.ts';

/** most refreshes kept for the timeline (older ones are thinned out: every other one dropped) */
export const MAX_FOLLOWED = 120;

export function createFollowSlice(
  initial: { followIndex?: number; followEvery?: number },
  send: (request: { type: 'follow'; index: number; every: number }) => void,
): StateCreator<PlaygroundState, [], [], FollowSlice> {
  return (set, get) => ({
    followed: [],
    followIndex: initial.followIndex ?? -1,
    followEvery: initial.followEvery ?? 5,
    setFollow(index, every = get().followEvery) {
      set({ followIndex: index, followEvery: every, followed: index === get().followIndex ? get().followed : [] });
      send({ type: 'follow', index, every });
    },
    internal_recordFollowed(rollout) {
      let followed = get().followed;
      // a new run (reset, reload) or another problem starts a new timeline
      const last = followed.at(-1);
      if (last && (rollout.step < last.step || rollout.index !== last.index)) followed = [];
      followed = [...followed.filter((f) => f.step !== rollout.step), rollout];
      if (followed.length > MAX_FOLLOWED) followed = [followed[0], ...followed.slice(1).filter((_, i) => i % 2 === 1)];
      set({ followed });
      markStartup('first-rollout');
    },
  });
}
