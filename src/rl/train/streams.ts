// The seed streams of a run's randomness, one per purpose, each fed to deriveSeed with the config seed and a
// counter (the epoch, the step), so a run is the same on every backend and a resumed run continues it exactly.
// Algorithm 1's phases use streams 4-6 (phases.ts).
export const STREAM = { order: 1, rollout: 2, minibatch: 3 } as const;
